// The progress bars shown while the tool modules, and later Python, download and compile.

export function LoadingBar({ progress, label = 'Loading the sandbox' }: { progress: { loaded: number; total: number } | null; label?: string }) {
  const percent = progress === null || progress.total === 0 ? 0 : Math.round((progress.loaded / progress.total) * 100);
  return (
    <div className="loading" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} title={label}>
      <div className="loading-fill" style={{ width: `${Math.max(5, percent)}%` }} />
    </div>
  );
}

/** Python loads on its first use, after the prompt: a bar while it downloads, then a note. */
export function PythonLoadingBar({ python }: { python: { stage: string; loaded: number; total: number } | null }) {
  if (python === null || (python.stage !== 'download' && python.stage !== 'snapshot')) return null;
  const label = python.stage === 'download' ? 'Downloading Python' : 'Preparing Python (first use on this browser)';
  return (
    <div className="python-loading">
      <LoadingBar progress={python.stage === 'download' ? python : { loaded: 1, total: 1 }} label={label} />
      <span className="python-loading-label" aria-live="polite">{label}…</span>
    </div>
  );
}
