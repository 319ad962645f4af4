import type { RunsRepo } from './runs-repository.js';

/**
 * A worker holds a run's loop by a lease on the run item (`lease_owner`,
 * `lease_until`): every change the loop makes is conditioned on it, so a
 * worker that lost it (it stalled past the lease and another took over)
 * can change nothing. A worker that dies simply stops renewing; the next
 * copy of its message, delivered by SQS after the visibility timeout, finds
 * the lease expired and takes it over.
 */

/** How long a lease lasts without renewal. */
export const LEASE_MS = 60_000;
/** How often a worker in a long call checks for a cancel or a takeover (and renews the lease when it is half gone). */
export const WATCH_MS = 1_000;

export class RunStopped extends Error {
  constructor(readonly why: 'ended' | 'lease_lost') {
    super(why === 'ended' ? 'The run ended while a call was in flight.' : 'Another worker took the run over.');
    this.name = 'RunStopped';
  }
}

export interface Lease {
  owner: string;
  until: number;
}

export async function takeLease(runs: Pick<RunsRepo, 'takeLease'>, runId: string, owner: string, now = Date.now()): Promise<Lease | undefined> {
  const until = now + LEASE_MS;
  return (await runs.takeLease(runId, owner, until, now)) ? { owner, until } : undefined;
}

/** Renews the lease when less than half of it is left; a lease that cannot be renewed is lost. */
export async function keepLease(runs: Pick<RunsRepo, 'takeLease'>, runId: string, lease: Lease, now = Date.now()): Promise<void> {
  if (lease.until - now > LEASE_MS / 2) return;
  const renewed = await takeLease(runs, runId, lease.owner, now);
  if (!renewed) throw new RunStopped('lease_lost');
  lease.until = renewed.until;
}

/**
 * Runs a call (a model turn, an MCP tool) that the run's end must abort at
 * once: while it is in flight the run is re-read every WATCH_MS, and a
 * cancel or a takeover aborts the call's signal; the lease is renewed as it
 * goes. A call that ends within WATCH_MS costs no read.
 */
export async function watched<T>(
  runs: Pick<RunsRepo, 'pulse' | 'takeLease'>,
  runId: string,
  lease: Lease,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let stopped: RunStopped | undefined;
  const timer = setInterval(() => {
    void (async () => {
      try {
        const pulse = await runs.pulse(runId);
        if (pulse?.status !== 'running') stopped = new RunStopped('ended');
        else if (pulse.lease_owner !== lease.owner) stopped = new RunStopped('lease_lost');
        else await keepLease(runs, runId, lease);
      } catch (error) {
        stopped = error instanceof RunStopped ? error : stopped;
      }
      if (stopped) controller.abort(stopped);
    })();
  }, WATCH_MS);
  try {
    const result = await call(controller.signal);
    if (stopped) throw stopped;
    return result;
  } catch (error) {
    throw stopped ?? error;
  } finally {
    clearInterval(timer);
  }
}
