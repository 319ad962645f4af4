import type { Machine } from '#machines/index.js';
import { machineOccupancy } from '#machines/index.js';
import type { Runs } from './run-changes.js';
import type { WakeRun } from './wake.js';

/**
 * Hands a free machine to the first run waiting for it (one run at a time
 * per machine, in order). Called by whoever frees a machine (a run that
 * ends, a cancel) and by any worker that finds its run still queued, as
 * often as they like: it does nothing while the machine is held or nobody
 * waits. The run is woken BEFORE the transaction that starts it, so a
 * caller that dies in between leaves a message whose worker finds the run
 * queued on a free machine and starts it itself; the other order could
 * leave a running run that no worker ever hears of.
 */
export interface AdvanceDeps {
  runs: Pick<Runs, 'get' | 'queueHead' | 'change' | 'queueEntryDelete'>;
  machines: { get(accountId: string, machineId: string): Promise<Machine | undefined> };
  tableName: string;
  wake: WakeRun;
}

/** Lost races in a row before it stops trying (another caller is advancing the same machine). */
const ATTEMPTS = 8;

export async function advanceMachine(deps: AdvanceDeps, accountId: string, machineId: string, now: () => Date = () => new Date()): Promise<void> {
  const occupancy = machineOccupancy(deps.tableName);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const machine = await deps.machines.get(accountId, machineId);
    if (!machine || machine.current_run_id !== null || machine.queued_runs <= 0) return;
    const head = await deps.runs.queueHead(machineId);
    if (!head) return;
    const run = await deps.runs.get(head.run_id);
    if (run?.status !== 'queued') {
      // Every change that takes a run out of `queued` deletes its entry in the same transaction, so this is a race with one: look again.
      continue;
    }
    await deps.wake(run);
    const at = now().toISOString();
    const started = await deps.runs.change(run, {
      set: { status: 'running', started_at: at, running_since: at, queue_sk: null },
      from: ['queued'],
      events: [{ type: 'run.status', data: { status: 'running' } }],
      items: [{ Update: occupancy.takeFromQueue(accountId, machineId, run.id) }, deps.runs.queueEntryDelete(machineId, head.sk)],
    });
    if (started) return;
  }
}
