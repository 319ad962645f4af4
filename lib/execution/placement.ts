import type { WorkflowNode } from '#workflows/index.js';
import type { EngineDeps } from './invocation.js';

/**
 * Node types that compute a pure function of their input in-process. Without
 * a retry policy they run without a claim (two deliveries computing the same
 * result is harmless; the settle's condition lets one win) and, when a parent
 * finishes, inline in the same invocation instead of a queue round trip.
 */
export const PURE_TYPES = new Set<string>(['transform', 'condition']);
export const isPure = (definition: WorkflowNode | undefined): definition is WorkflowNode =>
  !!definition && PURE_TYPES.has(definition.type) && !definition.retry;
/** Types the executor handles itself, in every worker. */
const EXECUTOR_TYPES = new Set(['approval', 'workflow']);
export const runsHere = (deps: EngineDeps, type: string): boolean => EXECUTOR_TYPES.has(type) || type in deps.runtime.runners;
/** Inline work stops this long before the invocation's deadline; the rest goes to the queue. */
export const INLINE_MARGIN_MS = 10_000;
