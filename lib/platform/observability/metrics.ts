import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logger } from './logger.js';
import { type METRIC, METRICS_NAMESPACE } from './metric-names.js';

export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** What was counted since the last flush: per dimension set, a count per metric. */
const counted = new Map<string, { dimensions: Readonly<Record<string, string>>; counts: Map<MetricName, number> }>();

let instance: Promise<{ metrics: Metrics; count: 'Count' }> | undefined;

/**
 * Off outside Lambda (`npm start`, tests), so no EMF line reaches a console
 * there, unless POWERTOOLS_METRICS_DISABLED is set: then Powertools reads it
 * (`false` prints them, `true` keeps them out in Lambda too).
 */
const recording = (): boolean => process.env.POWERTOOLS_METRICS_DISABLED !== undefined || Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);

/**
 * Counts `count` of `name` with `dimensions` (besides the `service`
 * dimension Powertools adds), published at the end of the invocation
 * (`flushMetrics`). Called once the change it counts has been written, by
 * the code that knows its write applied, so a redelivered message that
 * changes nothing counts nothing.
 */
export function countMetric(name: MetricName, dimensions: Readonly<Record<string, string>> = {}, count = 1): void {
  if (count <= 0 || !recording()) return;
  const key = JSON.stringify(Object.entries(dimensions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const set = counted.get(key) ?? { dimensions, counts: new Map<MetricName, number>() };
  set.counts.set(name, (set.counts.get(name) ?? 0) + count);
  counted.set(key, set);
}

/**
 * Publishes what was counted, one EMF document per dimension set (a
 * Powertools document gives all its metrics the same dimensions), and
 * nothing at all when nothing was: Powertools' own flush would warn on
 * every invocation that counted nothing. Called at the end of every
 * invocation (the HTTP stack, the SQS batch wrapper); never throws, as a
 * metric lost is better than an answer or a batch lost.
 */
export async function flushMetrics(): Promise<void> {
  if (counted.size === 0) return;
  const sets = [...counted.values()];
  counted.clear();
  try {
    instance ??= powertoolsMetrics();
    const { metrics, count } = await instance;
    for (const { dimensions, counts } of sets) {
      for (const [name, value] of Object.entries(dimensions)) metrics.addDimension(name, value);
      for (const [name, value] of counts) metrics.addMetric(name, count, value);
      metrics.publishStoredMetrics();
    }
  } catch (error) {
    logger().warn('metrics not published', { error: error as Error });
  }
}

/** Loaded by the first invocation that counted something, not at init: most functions never count, and those that do pay for it after their cold start's load. */
async function powertoolsMetrics() {
  const { Metrics, MetricUnit } = await import('@aws-lambda-powertools/metrics');
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'workflow-service' });
  return { metrics, count: MetricUnit.Count };
}
