/**
 * Machine sizes, and what a size changes: the one module the runs feature
 * reads. A run on a machine runs its agent loop in a function with the
 * memory of the machine's size (and Lambda gives CPU in proportion to
 * memory); machine time is metered per size in the price table
 * (MACHINE_SECOND_MICRO_USD, lib/platform/config/prices.ts).
 */
export const MACHINE_SIZES = ['small', 'medium', 'large'] as const;
export type MachineSize = (typeof MACHINE_SIZES)[number];

export const DEFAULT_MACHINE_SIZE: MachineSize = 'small';

/** Memory (MB) of the function that runs the agent loop of a run on a machine of this size. */
export const MACHINE_MEMORY_MB: Readonly<Record<MachineSize, number>> = { small: 1024, medium: 2048, large: 4096 };
