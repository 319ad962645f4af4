import { PLANS, type PlanName } from '#platform/config/plans.js';
import { NotFoundError } from '#platform/errors.js';
import type { Principal } from '#platform/http/types.js';
import { newMachineId } from '#platform/ids.js';
import type { MachinesRepo } from './machines-repository.js';
import type { Machine } from './model.js';
import type { MachineSize } from './sizes.js';

/**
 * Machines as the API shows them, the plan's machine limit, and the lookups
 * that answer 404 alike for malformed, unknown and other accounts' ids.
 */

/** Busy while a run holds the machine (running, or waiting for a person) or runs wait for it. */
export const machineStatus = (machine: Machine): 'idle' | 'busy' => (machine.current_run_id !== null || machine.queued_runs > 0 ? 'busy' : 'idle');

export const machineView = (machine: Machine) => ({
  id: machine.id,
  name: machine.name,
  size: machine.size,
  status: machineStatus(machine),
  current_run_id: machine.current_run_id,
  queued_runs: machine.queued_runs,
  created_at: machine.created_at,
});

/**
 * How many machines the account may have. Today its plan's number
 * (lib/platform/config/plans.ts); this is the one place that decides, so a
 * per-account limit set by an operator (`account:set-limits`) comes in here.
 */
export async function machineLimit(account: Pick<Principal, 'accountId' | 'plan'>): Promise<number> {
  const plan = PLANS[account.plan as PlanName];
  if (!plan) throw new Error(`Account ${account.accountId} has an unknown plan: ${account.plan}.`);
  return plan.machines;
}

export async function createMachine(
  machines: MachinesRepo,
  principal: Pick<Principal, 'accountId' | 'plan'>,
  input: { name: string; size: MachineSize },
  now = new Date(),
): Promise<Machine> {
  const limit = await machineLimit(principal);
  return machines.create({ id: newMachineId(), accountId: principal.accountId, name: input.name, size: input.size, now: now.toISOString(), limit });
}

export async function findMachine(machines: MachinesRepo, accountId: string, machineId: string): Promise<Machine> {
  const machine = await machines.get(accountId, machineId);
  if (!machine) throw new NotFoundError('No such machine.');
  return machine;
}
