// The messages the playground shows for what went wrong: each says what happened and what
// to do. Pure functions from results and errors to banner content.

import type { RunResult } from '../../host/browser/index.js';

export type BannerLevel = 'error' | 'warning' | 'info';

export interface BannerAction {
  label: string;
  run: () => void;
}

export interface Banner {
  id: number;
  level: BannerLevel;
  /** A short machine-readable kind, for tests and for replacing an earlier banner of the same kind. */
  kind: string;
  title: string;
  detail?: string;
  actions?: BannerAction[];
}

export type BannerContent = Omit<Banner, 'id'>;

/** The banner for a run's abnormal end, or undefined when nothing needs saying. */
export function bannerForRun(command: string, result: RunResult, timeoutMs: number): BannerContent | undefined {
  const short = command.length > 60 ? `${command.slice(0, 57)}…` : command;
  switch (result.errorClass) {
    case 'timeout':
      return {
        level: 'error',
        kind: 'timeout',
        title: `“${short}” was stopped: it ran past the ${timeoutMs / 1000} s time limit.`,
        detail: result.stderr.includes('was restored')
          ? 'It did not stop at its deadline, so the sandbox was restarted and its effects were rolled back; everything from before it is intact. Raise the timeout in Settings if the command needs longer.'
          : 'Its processes were ended. Raise the timeout in Settings if the command needs longer.',
      };
    case 'worker-restarted':
      return {
        level: 'error',
        kind: 'worker-restarted',
        title: 'The sandbox crashed and was restarted.',
        detail: 'The command’s effects were rolled back; files from before it are intact. You can run it again.',
      };
    case 'limit':
      return {
        level: 'warning',
        kind: 'limit',
        title: `“${short}” hit the ${result.limit?.name ?? 'sandbox'} limit${result.limit ? ` (${result.limit.value})` : ''}.`,
        detail: 'Free some space (rm) or raise the limit in Settings.',
      };
    case 'crash':
      return { level: 'warning', kind: 'crash', title: `“${short}” crashed (exit ${result.exitCode}).`, detail: 'The shell and files are as they were before it.' };
    default:
      return undefined;
  }
}

export function bannerForSaveError(error: Error): BannerContent {
  if (error.name === 'StoreQuotaError') {
    return {
      level: 'error',
      kind: 'quota',
      title: 'Saving failed: this browser’s storage for the site is full.',
      detail: 'The stored workspace is unchanged (the last complete save). Your changes are still in the sandbox and will be saved when there is room: delete large files, or export the workspace to keep a copy.',
    };
  }
  return { level: 'error', kind: 'save', title: 'Saving the workspace failed.', detail: `${error.message}. The stored workspace is unchanged; saving will be retried with the next change.` };
}
