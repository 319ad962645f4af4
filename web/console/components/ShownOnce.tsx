import { useRef, useState } from 'preact/hooks';

/** A secret (a token, a signing secret) the API shows once: a copy button and the warning that it will not be shown again. */
export function ShownOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      field.current?.select();
      setCopied('Selected: press Ctrl+C (⌘C) to copy.');
    }
  };
  return (
    <section class="once" aria-label={label}>
      <p class="warning">
        <strong>Copy it now: it will not be shown again.</strong> Only a hash is kept by the service.
      </p>
      <div class="row">
        <label class="grow">
          {label}
          <input ref={field} class="mono" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        </label>
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </div>
      <p class="muted" role="status">
        {copied}
      </p>
    </section>
  );
}
