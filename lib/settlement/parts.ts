import { cancellationReasons } from '#platform/table/table.js';
import type { TransactItem } from '#platform/table/transactions.js';
import type { Part, PartName } from './model.js';

/** The items of the parts, in their order: what TransactWriteItems is sent. */
export const itemsOf = (parts: readonly Part[]): TransactItem[] => parts.flatMap((part) => part.items);

/** Why a transaction of these parts was cancelled, by part: the names that refused it and whether another transaction held one of them. */
export interface Cancellation {
  refused: PartName[];
  conflict: boolean;
}

/**
 * The cancellation of a transaction built of `parts`, read part by part
 * (each part owns the reasons of its own items); undefined for an error
 * that is not a cancelled transaction.
 */
export function cancellationOf(error: unknown, parts: readonly Part[]): Cancellation | undefined {
  const reasons = cancellationReasons(error);
  if (!reasons) return undefined;
  const refused: PartName[] = [];
  let conflict = false;
  let at = 0;
  for (const part of parts) {
    const own = reasons.slice(at, at + part.items.length);
    at += part.items.length;
    if (own.some((reason) => reason.Code === 'ConditionalCheckFailed')) refused.push(part.name);
    if (own.some((reason) => reason.Code === 'TransactionConflict')) conflict = true;
  }
  return { refused, conflict };
}

/** True when `name` alone refused it. */
export const refusedOnly = (cancellation: Cancellation | undefined, name: PartName): boolean =>
  cancellation?.refused.length === 1 && cancellation.refused[0] === name;
