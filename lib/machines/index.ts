/**
 * What other features may use of machines: the model type and the sizes
 * (what a size changes, for the runs feature that runs agent loops on them).
 */
export type { Machine } from './machines-repository.js';
export { DEFAULT_MACHINE_SIZE, MACHINE_MEMORY_MB, MACHINE_SIZES, type MachineSize } from './sizes.js';
