// The messages the playground shows for what went wrong: each says what happened and what
// to do. Pure functions from results and errors to banner content.

import type { RunResult } from '../../host/browser/index.js';
import { formatDuration } from '../format.js';
import { describeLimit } from './settings.js';

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

/**
 * The banner of a tab that does not own its workspace: another tab has it `open` (this one
 * never saved), or has `taken` it over from this one; both offer to take it (back) or fork.
 */
export function otherTabBanner(why: 'open' | 'taken', takeOver: () => void, fork: () => void): BannerContent {
  return {
    level: 'warning',
    kind: 'other-tab',
    ...(why === 'open'
      ? { title: 'This workspace is open in another tab; this tab does not save, so nothing is overwritten.', detail: 'Take it over here (the other tab stops saving), or fork it into a new workspace.' }
      : { title: 'Another tab took this workspace over; this tab stopped saving.', detail: 'Take it back (reloads the saved workspace here), or fork what this tab has into a new workspace.' }),
    actions: [
      { label: 'Take over', run: takeOver },
      { label: 'Fork', run: fork },
    ],
  };
}

/** The banner for a run's abnormal end, or undefined when nothing needs saying. */
export function bannerForRun(command: string, result: RunResult, timeoutMs: number): BannerContent | undefined {
  const short = command.length > 60 ? `${command.slice(0, 57)}…` : command;
  switch (result.errorClass) {
    case 'timeout':
      return {
        level: 'error',
        kind: 'timeout',
        title: `“${short}” was stopped: it ran past the ${formatDuration(timeoutMs)} time limit.`,
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
        title: `“${short}” hit the ${result.limit ? describeLimit(result.limit.name, result.limit.value) : 'sandbox’s limits'}.`,
        detail: 'Free some space (rm) or raise the limit in Settings.',
      };
    case 'crash':
      return { level: 'warning', kind: 'crash', title: `“${short}” crashed (exit ${result.exitCode}).`, detail: 'The shell and files are as they were before it.' };
    default:
      return undefined;
  }
}

/**
 * A failed save in plain words: what happened, that the stored copy is the last complete
 * save, and what to do. The browser's own words come last, for a bug report.
 */
export function bannerForSaveError(error: Error): BannerContent {
  const keep = 'The stored workspace is the last complete save; your files are still here in the sandbox.';
  if (error.name === 'StoreQuotaError') {
    return {
      level: 'error',
      kind: 'quota',
      title: 'Saving failed: this browser’s storage for the site is full.',
      detail: `${keep} They are saved when there is room: delete large files, or export the workspace (Sessions) to keep a copy.`,
    };
  }
  const browserError = (error as Error & { browserError?: string }).browserError ?? '';
  const technical = error.message.replace(/^[^:]*: /, '');
  let what = 'the browser could not store the workspace';
  let todo = 'Saving is tried again with the next change; to keep a copy now, export the workspace (Sessions).';
  if (browserError === 'InvalidStateError' || /closing|closed/i.test(technical)) {
    what = 'the browser closed the site’s storage (its data may have been cleared)';
    todo = 'Export the workspace (Sessions) to keep a copy, then reload the page.';
  } else if (browserError === 'VersionError') {
    what = 'a newer version of the playground is open in another tab';
    todo = 'Reload this page.';
  } else if (browserError === 'DataError' || /\bmax=\d+/.test(technical)) {
    what = 'a file is larger than this browser stores in one piece';
    todo = 'Export the workspace (Sessions) to keep a copy, and report this: files should be stored in pieces.';
  }
  return { level: 'error', kind: 'save', title: `Saving failed: ${what}.`, detail: `${keep} ${todo} (The browser said: ${technical})` };
}
