/** What a local stack started, stopped in reverse order, each stop's failure ignored so the rest still run. */
export function stopList(): { push(stop: () => Promise<void>): void; stopAll(): Promise<void> } {
  const stops: Array<() => Promise<void>> = [];
  return {
    push: (stop) => void stops.push(stop),
    stopAll: async () => {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    },
  };
}
