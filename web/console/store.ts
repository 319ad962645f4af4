import { useEffect, useReducer } from 'preact/hooks';

/**
 * A value the whole console shares (the session's phase, the route), and the
 * hook a component reads it with, re-rendering when it changes. The same
 * `.value` API as @preact/signals, for the four values that need it, at a
 * fraction of its 7.7 KB (docs/console.md, Stack).
 */
export interface Store<T> {
  value: T;
  subscribe(listener: () => void): () => void;
}

export function store<T>(initial: T): Store<T> {
  let value = initial;
  const listeners = new Set<() => void>();
  return {
    get value() {
      return value;
    },
    set value(next: T) {
      if (Object.is(next, value)) return;
      value = next;
      for (const listener of [...listeners]) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export function useStore<T>(shared: Store<T>): T {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  const seen = shared.value;
  useEffect(() => {
    const changed = () => bump(0);
    const stop = shared.subscribe(changed);
    if (!Object.is(shared.value, seen)) changed();
    return stop;
  }, [shared]);
  return shared.value;
}
