import { nameBasedUuid, parse } from '#platform/uuid.js';
import type { Evaluation } from './model.js';

/**
 * The id of the run the service starts for the slot `(position,
 * attempt_index)` of a `run: true` evaluation: derived from the slot, so
 * whoever creates it (a worker, its redelivery, a concurrent copy) creates
 * the same run, and creating it again finds it (lib/runs/create-run.ts).
 * It has the shape of every run id (lib/platform/ids.ts): its time part is
 * the evaluation's creation plus the slot's ordinal in milliseconds, so the
 * runs of an evaluation sort in slot order even when two are created in one
 * millisecond (a machine's queue breaks ties of creation time by run id).
 */
export function evaluationRunId(evaluation: Pick<Evaluation, 'id' | 'created_at' | 'attempts_per_case'>, position: number, attemptIndex: number): string {
  const ordinal = position * evaluation.attempts_per_case + attemptIndex;
  const time = (Date.parse(evaluation.created_at) + ordinal).toString(36).padStart(9, '0');
  const bytes = parse(nameBasedUuid(`evaluation-run:${evaluation.id}:${position}:${attemptIndex}`)).subarray(0, 12);
  return `run_${time}${Buffer.from(bytes).toString('base64url')}`;
}
