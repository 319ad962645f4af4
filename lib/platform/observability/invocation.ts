import type { Context } from 'aws-lambda';
import { withLogScope } from './logger.js';
import { flushMetrics } from './metrics.js';

/**
 * One Lambda invocation, as every entry point runs it (the HTTP stack, the
 * SQS batch wrapper): its lines carry its Lambda context, and the keys the
 * stack adds as it learns them, for as long as it runs and no longer; the
 * metrics it counted are published when it ends, however it ends.
 */
export async function observeInvocation<T>(context: Context, fn: () => Promise<T>): Promise<T> {
  try {
    return await withLogScope({}, fn, context);
  } finally {
    await flushMetrics();
  }
}
