/**
 * What other features may use of machines: the model type, the sizes
 * (what a size changes), a machine of an account by id, and the writes the
 * runs feature makes to hold and queue for a machine.
 */
import type { TableRef } from '#platform/table/table.js';
import { type MachinesRepo, machinesRepo } from './machines-repository.js';

export type { Machine } from './model.js';
export { machineOccupancy } from './occupancy.js';
export { DEFAULT_MACHINE_SIZE, MACHINE_MEMORY_MB, MACHINE_SIZES, type MachineSize } from './sizes.js';

/** A machine of an account by id (undefined for a malformed, unknown or other account's id alike). */
export const machineLookup = (table?: TableRef): Pick<MachinesRepo, 'get'> => machinesRepo(table);
