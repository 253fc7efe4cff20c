// In-page dialogs (confirm, prompt, and a confirm with a custom body such as an import
// preview) instead of window.confirm/prompt, which block the page, cannot be styled or
// tested well, and that some embedding contexts forbid. The service is a tiny external
// store: a caller awaits a promise; <DialogHost> renders the request at the head of the
// queue in a modal <dialog> (focus trapped, Escape cancels) and settles it.

import type { ReactNode } from 'react';

export interface ConfirmRequest {
  kind: 'confirm';
  title: string;
  body?: ReactNode;
  confirmLabel?: string;
  cancelLabel?: string;
  /** Styles the confirm button as destructive. */
  danger?: boolean;
}

export interface PromptRequest {
  kind: 'prompt';
  title: string;
  label: string;
  value?: string;
  confirmLabel?: string;
  /** Returns an error message for an unacceptable answer (shown under the field). */
  validate?: (value: string) => string | undefined;
}

export type DialogRequest = ConfirmRequest | PromptRequest;

export interface OpenDialog {
  id: number;
  request: DialogRequest;
  settle(answer: string | boolean | null): void;
}

export class DialogService {
  private queue: OpenDialog[] = [];
  private readonly listeners = new Set<() => void>();
  private nextId = 1;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The dialog shown now (the first of the queue), or null. */
  current = (): OpenDialog | null => this.queue[0] ?? null;

  /** Resolves true when confirmed, false when cancelled (button, Escape). */
  confirm(request: Omit<ConfirmRequest, 'kind'>): Promise<boolean> {
    return this.open({ kind: 'confirm', ...request }).then((answer) => answer === true);
  }

  /** Resolves with the entered text, or null when cancelled. */
  prompt(request: Omit<PromptRequest, 'kind'>): Promise<string | null> {
    return this.open({ kind: 'prompt', ...request }).then((answer) => (typeof answer === 'string' ? answer : null));
  }

  private open(request: DialogRequest): Promise<string | boolean | null> {
    return new Promise((resolve) => {
      const dialog: OpenDialog = {
        id: this.nextId++,
        request,
        settle: (answer) => {
          this.queue = this.queue.filter((d) => d !== dialog);
          this.emit();
          resolve(answer);
        },
      };
      this.queue = [...this.queue, dialog];
      this.emit();
    });
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
