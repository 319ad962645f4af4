import { TABLE_DEFINITION } from './definition.js';

/**
 * The attributes every item may carry for the table's sake, not its
 * entity's: the keys, every index's keys, `entity` (what the item is) and
 * the TTL attribute.
 */
export const TABLE_ATTRIBUTES: readonly string[] = [
  TABLE_DEFINITION.partitionKey,
  TABLE_DEFINITION.sortKey,
  ...TABLE_DEFINITION.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  'entity',
  TABLE_DEFINITION.ttlAttribute,
];

/**
 * The entity an item stores: the item without the table's attributes
 * (TABLE_ATTRIBUTES) and without the `extraInternal` ones the entity keeps
 * on its item but does not show (a folded name, a password hash). The
 * other attributes are taken as they are; `defaults` stand in for those
 * the item lacks (written before the field existed, or never set).
 */
export function entityOf<T>(item: Record<string, unknown>, extraInternal: readonly string[] = [], defaults: Partial<T> = {}): T {
  const hidden = new Set([...TABLE_ATTRIBUTES, ...extraInternal]);
  return { ...defaults, ...Object.fromEntries(Object.entries(item).filter(([name]) => !hidden.has(name))) } as T;
}
