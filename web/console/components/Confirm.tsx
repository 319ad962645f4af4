import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useAction } from '../action';
import { Problem } from './Problem';

interface ConfirmProps {
  title: string;
  children: ComponentChildren;
  /** The button that does it, e.g. "Revoke token". */
  action: string;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}

/** A modal dialog asking before something that cannot be undone; Escape or "Keep it" closes it. */
export function Confirm({ title, children, action, onConfirm, onClose }: ConfirmProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, error, run] = useAction();
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} class="confirm" aria-labelledby="confirm-title" onClose={onClose}>
      <h3 id="confirm-title">{title}</h3>
      <p>{children}</p>
      <Problem error={error} />
      <div class="actions">
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() =>
            run(async () => {
              await onConfirm();
              onClose();
            })
          }
        >
          {action}
        </button>
        <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
          Keep it
        </button>
      </div>
    </dialog>
  );
}
