import { type LoopContext, type LoopDeps, runLoop, secondsUntil } from './agent-loop.js';
import { afterEnd, endRun } from './end-run.js';
import { advanceMachine } from './machine-queue.js';
import { isTerminal, type Run } from './model.js';
import type { RunTask } from './wake.js';

/** Times a worker looks again for a run it was woken for but cannot find (its creation had not committed yet), a second apart. */
const ABSENT_RETRIES = 10;
/**
 * Pauses (ms) of a first look again, in the same invocation: a run is woken
 * just before its creation's transaction, which usually commits within
 * milliseconds, while a new message costs a send, a receive and a second.
 */
export const ABSENT_PAUSES_MS = [20, 40, 80];
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * What a run task does (lib/runs/queues.ts), by the run's status as read
 * now, so that any copy of any message at any time is harmless:
 * - queued: hand its machine on if free (it may be this run's turn);
 * - running: run the loop (unless a live worker holds its lease);
 * - waiting: resume it if the interaction was answered, fail it if it
 *   expired, else look again when it would expire;
 * - ended: finish what its end left (its interaction, its machine).
 */
export async function moveRun(deps: LoopDeps, task: RunTask, ctx: LoopContext): Promise<void> {
  let run = await deps.runs.get(task.run_id);
  for (const ms of task.absent ? [] : ABSENT_PAUSES_MS) {
    if (run) break;
    await pause(ms);
    run = await deps.runs.get(task.run_id);
  }
  if (!run) {
    const absent = (task.absent ?? 0) + 1;
    if (absent <= ABSENT_RETRIES) await deps.wake({ id: task.run_id, machine_size: task.machine_size }, { delaySeconds: 1, absent });
    return;
  }
  if (run.status === 'queued') {
    await advanceMachine(deps, run.account_id, run.machine_id);
    run = await deps.runs.get(run.id);
    if (run?.status !== 'running') return;
  }
  if (isTerminal(run.status)) return afterEnd(deps, run, run.wait?.interaction_id);
  if (run.status === 'waiting') {
    const resumed = await resume(deps, run);
    if (!resumed) return;
    run = resumed;
  }
  await runLoop(deps, run, ctx);
}

/** A waiting run once its interaction is settled: running again (answered), failed with `timeout` (expired), or as it was. */
async function resume(deps: LoopDeps, run: Run): Promise<Run | undefined> {
  const wait = run.wait!;
  const interaction = await deps.interactions.get(wait.interaction_id);
  const now = deps.now();
  const expired =
    interaction?.status === 'expired' ||
    (interaction?.status === 'pending' && interaction.expires_at !== null && Date.parse(interaction.expires_at) <= now.getTime());
  if (interaction?.status === 'pending' && !expired) {
    await deps.wake(run, { delaySeconds: secondsUntil(interaction.expires_at, now) });
    return undefined;
  }
  if (expired || !interaction) {
    await deps.interactions.resolve(wait.interaction_id, 'expired', null);
    await endRun(
      deps,
      run,
      { status: 'failed', failure: { code: 'timeout', message: 'Nobody answered the run’s interaction in time.', retryable: false }, waitStatus: 'expired' },
      ['waiting'],
    );
    return undefined;
  }
  if (interaction.status !== 'answered') return undefined; // cancelled: only the run's cancel does that, and it ended the run
  const at = now.toISOString();
  return deps.runs.change(run, {
    set: { status: 'running', running_since: at, wait: null },
    from: ['waiting'],
    waitingFor: wait.interaction_id,
    events: [
      { type: 'interaction', data: { interaction_id: wait.interaction_id, type: wait.type, status: 'answered' } },
      { type: 'run.status', data: { status: 'running' } },
    ],
  });
}
