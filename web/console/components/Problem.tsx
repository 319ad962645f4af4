import { errorText } from '../api';

/** A failed call (or a sentence about one), said for a person and announced. */
export function Problem({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="problem" role="alert">
      {typeof error === 'string' ? error : errorText(error)}
    </p>
  );
}
