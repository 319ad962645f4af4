import { randomBytes } from 'node:crypto';

/**
 * Public ids: a type prefix, the creation time (9 base-36 digits, so ids sort
 * in creation order within a partition) and 96 random bits.
 */
const prefixed = (prefix: string) => (): string => `${prefix}_${Date.now().toString(36).padStart(9, '0')}${randomBytes(12).toString('base64url')}`;

export const newTokenId = prefixed('tok');
export const newHarnessId = prefixed('h');
export const newMachineId = prefixed('mch');
export const newRunId = prefixed('run');
export const newEvaluationId = prefixed('eval');
export const newScheduleId = prefixed('sch');
