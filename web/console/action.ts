import { useState } from 'preact/hooks';
import { errorText } from './api';

/** A button's work: busy while it runs, and the sentence of its failure. */
export function useAction(): [busy: boolean, error: string, run: (work: () => Promise<unknown>) => Promise<void>, setError: (e: string) => void] {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError('');
    try {
      await work();
    } catch (failure) {
      setError(errorText(failure));
    }
    setBusy(false);
  };
  return [busy, error, run, setError];
}
