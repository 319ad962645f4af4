import { useEffect, useRef, useState } from 'preact/hooks';

/** One page of a cursor-paged list, as the API answers it. */
export interface Page<T> {
  items: T[];
  next?: string | null | undefined;
}

export interface Paged<T> {
  items: T[];
  loading: boolean;
  error: unknown;
  hasMore: boolean;
  /** The next page, after the items shown. */
  more(): void;
  /** From the first page again. */
  reload(): void;
  update(change: (items: T[]) => T[]): void;
}

/**
 * A list that follows the API's cursor: the first page when `deps` change
 * (filters), the next on `more()`. An answer that comes after a newer
 * request was made is dropped.
 */
export function usePaged<T>(load: (cursor?: string) => Promise<Page<T>>, deps: unknown[] = []): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | undefined>();
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);

  const fetchPage = (cursor?: string) => {
    const ticket = ++latest.current;
    setLoading(true);
    setError(undefined);
    load(cursor).then(
      (page) => {
        if (ticket !== latest.current) return;
        setItems((shown) => (cursor ? [...shown, ...page.items] : page.items));
        setNext(page.next ?? undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (ticket !== latest.current) return;
        setError(failure);
        setLoading(false);
      },
    );
  };

  // The caller's deps are the filters `load` closes over.
  useEffect(() => fetchPage(), [...deps, generation]);

  return {
    items,
    loading,
    error,
    hasMore: next !== undefined,
    more: () => next && fetchPage(next),
    reload: () => setGeneration((g) => g + 1),
    update: setItems,
  };
}
