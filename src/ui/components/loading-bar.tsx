// The progress bar shown while the tool modules download and compile.

export function LoadingBar({ progress }: { progress: { loaded: number; total: number } | null }) {
  const percent = progress === null || progress.total === 0 ? 0 : Math.round((progress.loaded / progress.total) * 100);
  return (
    <div className="loading" role="progressbar" aria-label="Loading the sandbox" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
      <div className="loading-fill" style={{ width: `${Math.max(5, percent)}%` }} />
    </div>
  );
}
