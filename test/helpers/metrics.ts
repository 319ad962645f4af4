import { vi } from 'vitest';
import { flushMetrics } from '#platform/observability/metrics.js';

/** One embedded-metric-format document, as Powertools Metrics writes it to stdout. */
export interface EmfDocument {
  _aws: { Timestamp: number; CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string; Unit: string }> }> };
  [key: string]: unknown;
}

/** Outside Lambda the service counts nothing (metrics.ts); this turns counting on for the calling test (`vi.unstubAllEnvs` turns it off). */
export const recordMetrics = (): void => {
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
};

/** Every line written to stdout or stderr while `fn` runs, split into lines. */
export async function writtenLines(fn: () => Promise<unknown>): Promise<string[]> {
  const chunks: string[] = [];
  const capture = (chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    await fn();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return chunks.join('').split('\n').filter(Boolean);
}

/** Publishes what was counted (`flushMetrics`) and answers the documents written. */
export async function publishedMetrics(): Promise<EmfDocument[]> {
  return (await writtenLines(flushMetrics)).map((line) => JSON.parse(line) as EmfDocument);
}

/**
 * What was counted since the last flush, summed by metric and dimensions:
 * `{ 'RunsEnded status=cancelled': 1, RunsStarted: 1 }` (the `service`
 * dimension left out).
 */
export async function publishedCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const document of await publishedMetrics()) {
    for (const directive of document._aws.CloudWatchMetrics) {
      const dimensions = (directive.Dimensions[0] ?? []).filter((name) => name !== 'service').map((name) => `${name}=${String(document[name])}`);
      for (const { Name } of directive.Metrics) {
        const key = [Name, ...dimensions].join(' ');
        counts[key] = (counts[key] ?? 0) + Number(document[Name]);
      }
    }
  }
  return counts;
}
