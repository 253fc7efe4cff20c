// Renders the DialogService's current request as a modal <dialog>: showModal() traps focus
// and makes the rest of the page inert; Escape (the dialog's cancel event) cancels.

import { useEffect, useId, useRef, useState, useSyncExternalStore, type FormEvent } from 'react';
import type { DialogService, OpenDialog } from './dialog-service.js';

export function DialogHost({ service }: { service: DialogService }) {
  const open = useSyncExternalStore(service.subscribe, service.current);
  return open === null ? null : <ModalDialog key={open.id} open={open} />;
}

function ModalDialog({ open }: { open: OpenDialog }) {
  const element = useRef<HTMLDialogElement>(null);
  const { request } = open;
  const [value, setValue] = useState(request.kind === 'prompt' ? request.value ?? '' : '');
  const [error, setError] = useState<string | undefined>(undefined);
  const titleId = useId();
  const fieldId = useId();

  useEffect(() => {
    const dialog = element.current;
    if (dialog === null) return undefined;
    if (!dialog.open) dialog.showModal();
    const onCancel = (event: Event): void => {
      event.preventDefault();
      open.settle(request.kind === 'confirm' ? false : null);
    };
    dialog.addEventListener('cancel', onCancel);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
    };
  }, [open]);

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (request.kind === 'confirm') {
      open.settle(true);
      return;
    }
    const problem = request.validate?.(value);
    if (problem !== undefined) {
      setError(problem);
      return;
    }
    open.settle(value);
  };

  return (
    <dialog ref={element} className="dialog" aria-labelledby={titleId} data-testid="dialog">
      <form method="dialog" onSubmit={submit}>
        <h2 id={titleId}>{request.title}</h2>
        {request.kind === 'confirm' && request.body !== undefined ? <div className="dialog-body">{request.body}</div> : null}
        {request.kind === 'prompt' ? (
          <div className="dialog-body">
            <label htmlFor={fieldId}>{request.label}</label>
            <input
              id={fieldId}
              autoFocus
              value={value}
              spellCheck={false}
              aria-invalid={error !== undefined}
              aria-describedby={error !== undefined ? `${fieldId}-error` : undefined}
              onChange={(e) => {
                setValue(e.target.value);
                setError(undefined);
              }}
            />
            {error !== undefined ? (
              <p id={`${fieldId}-error`} className="dialog-error" role="alert">
                {error}
              </p>
            ) : null}
          </div>
        ) : null}
        <div className="dialog-actions">
          <button type="button" onClick={() => open.settle(request.kind === 'confirm' ? false : null)}>
            {request.kind === 'confirm' ? request.cancelLabel ?? 'Cancel' : 'Cancel'}
          </button>
          <button type="submit" className={request.kind === 'confirm' && request.danger ? 'danger primary' : 'primary'} autoFocus={request.kind === 'confirm'}>
            {request.confirmLabel ?? 'OK'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
