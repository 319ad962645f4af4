import { TABLE_DEFINITION } from '#platform/table/definition.js';
import { itemSize, readUnits, type WireItem, writeUnits } from './item-size.js';

/**
 * What a DynamoDB call is billed under AWS's rules (1 write unit per KB,
 * 1 read unit per 4 KB strongly consistent, half that eventually
 * consistent, index copies billed as writes), from what DynamoDB Local
 * reported and, where it differs from AWS, from item sizes
 * (bench/support/dynamo-proxy.ts records the calls).
 */

/** How `awsUnits` of a DynamoDB call was arrived at. */
export type CapacityBasis =
  /** As DynamoDB Local reported it (table plus indexes). */
  | 'local'
  /** A Query that read nothing: DynamoDB Local reports 0; billed at the minimum (1 strongly consistent, 0.5 eventually). */
  | 'minimum-read'
  /** TransactWriteItems: 2 × the item's write units (largest of before and after image, read on the side) per item, index copies included. */
  | 'sized-transaction'
  /** A write whose condition failed: DynamoDB Local reports nothing; AWS bills the existing item's size (at least 1). */
  | 'sized-failed-condition'
  /** A transaction that was cancelled: 2 × each existing item's write units. */
  | 'sized-failed-transaction'
  /** As above but without side reads (sizing off): the minimum. */
  | 'minimum-write'
  /** An error that consumed nothing. */
  | 'none';

export interface DynamoCall {
  op: string;
  startedAt: number;
  endedAt: number;
  status: number;
  /** `__type` of an error answer, without its namespace, e.g. `ConditionalCheckFailedException`. */
  errorType?: string;
  /** The request as the service sent it (before `ReturnConsumedCapacity` was added). */
  request: Record<string, unknown> | undefined;
  kind: 'read' | 'write' | 'other';
  consistentRead: boolean;
  /** ConsumedCapacity as DynamoDB Local reported it: total, and the part on indexes. */
  localUnits?: number;
  localIndexUnits?: number;
  /** The same call's units under AWS's size rules, computed here from item sizes, when computable (a check on `localUnits`). */
  sizedUnits?: number;
  /** The figure to bill: AWS's rules. */
  awsUnits: number;
  /** The part of `awsUnits` spent on index copies. */
  awsIndexUnits: number;
  basis: CapacityBasis;
  /** Writes: table items and index copies written (sizing on), for the minimum-size floor. */
  itemsWritten?: number;
  indexItemsWritten?: number;
  transactional?: boolean;
  /** TransactWriteItems, sized: the units of each of its items, in the request's order (index copies included). */
  itemUnits?: number[];
}

export const CAPACITY_OPS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'TransactGetItems',
]);
const READ_OPS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const WRITE_OPS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

export const kindOf = (op: string): DynamoCall['kind'] => (READ_OPS.has(op) ? 'read' : WRITE_OPS.has(op) ? 'write' : 'other');

/** Every index projects ALL attributes (infra/stack.ts), so an item with an index's key attributes is copied there in full. */
const INDEX_KEYS = TABLE_DEFINITION.globalSecondaryIndexes.map((i) => [i.partitionKey, i.sortKey]);
const hasIndexKeys = (item: WireItem | undefined) => !!item && INDEX_KEYS.some((attrs) => attrs.every((a) => a in item));

export const keyOf = (item: WireItem): WireItem => ({
  [TABLE_DEFINITION.partitionKey]: item[TABLE_DEFINITION.partitionKey]!,
  [TABLE_DEFINITION.sortKey]: item[TABLE_DEFINITION.sortKey]!,
});

export interface TransactTarget {
  action: string;
  tableName: string;
  key: WireItem;
}

/** Table and key of each item a TransactWriteItems touches. */
export const transactTargets = (request: Record<string, unknown>): TransactTarget[] =>
  ((request.TransactItems as Array<Record<string, Record<string, unknown>>>) ?? []).map((entry) => {
    const [action, spec] = Object.entries(entry)[0] ?? ['Unknown', {}];
    const key = action === 'Put' ? keyOf(spec.Item as WireItem) : (spec.Key as WireItem);
    return { action, tableName: String(spec.TableName), key };
  });

interface ConsumedCapacity {
  CapacityUnits?: number;
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
  LocalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

export function localCapacity(answer: Record<string, unknown> | undefined): { total: number; index: number } | undefined {
  const raw = answer?.ConsumedCapacity as ConsumedCapacity | ConsumedCapacity[] | undefined;
  if (!raw) return undefined;
  const list = Array.isArray(raw) ? raw : [raw];
  let total = 0;
  let index = 0;
  for (const c of list) {
    total += c.CapacityUnits ?? 0;
    for (const i of Object.values({ ...c.GlobalSecondaryIndexes, ...c.LocalSecondaryIndexes })) index += i.CapacityUnits ?? 0;
  }
  return { total, index };
}

/** Items read straight from DynamoDB Local on the side (when `sized`) to size writes. */
export interface SideReads {
  sized: boolean;
  get(tableName: string, key: WireItem): Promise<WireItem | undefined>;
}

export interface CallContext {
  op: string;
  request: Record<string, unknown>;
  answer: Record<string, unknown> | undefined;
  transaction: TransactTarget[] | undefined;
  /** Each transaction item before the call, when sized. */
  before: Array<WireItem | undefined> | undefined;
}

/** Sizes a successful call (`sizedUnits`, items written) and corrects its bill where DynamoDB Local differs from AWS. */
export async function billAnswered(call: DynamoCall, c: CallContext, side: SideReads): Promise<void> {
  const { op, request, answer, transaction, before } = c;
  if (transaction) {
    call.transactional = true;
    call.itemsWritten = transaction.length;
    if (side.sized) {
      const after = await Promise.all(
        transaction.map((t) => (t.action === 'Delete' || t.action === 'ConditionCheck' ? undefined : side.get(t.tableName, t.key))),
      );
      let units = 0;
      let indexUnits = 0;
      let indexItems = 0;
      const itemUnits: number[] = [];
      transaction.forEach((_, i) => {
        const size = Math.max(itemSize(before?.[i]), itemSize(after[i]));
        units += 2 * writeUnits(size);
        itemUnits.push(2 * writeUnits(size));
        if (hasIndexKeys(before?.[i]) || hasIndexKeys(after[i])) {
          // Index copies of a transactional write counted at 2x too, as DynamoDB Local counts them.
          indexUnits += 2 * writeUnits(size);
          itemUnits[i]! += 2 * writeUnits(size);
          indexItems++;
        }
      });
      call.itemUnits = itemUnits;
      call.indexItemsWritten = indexItems;
      call.sizedUnits = units + indexUnits;
      call.awsUnits = units + indexUnits;
      call.awsIndexUnits = indexUnits;
      call.basis = 'sized-transaction';
    }
  } else if (SINGLE_WRITES.has(op)) {
    call.itemsWritten = 1;
    if (side.sized) {
      const key = op === 'PutItem' ? keyOf(request.Item as WireItem) : (request.Key as WireItem);
      const after = op === 'DeleteItem' ? undefined : op === 'PutItem' ? (request.Item as WireItem) : await side.get(String(request.TableName), key);
      if (after) {
        const indexed = hasIndexKeys(after);
        call.indexItemsWritten = indexed ? 1 : 0;
        // The after image only: an update is billed on the larger of before and after, so this is a lower bound.
        call.sizedUnits = writeUnits(itemSize(after)) * (indexed ? 2 : 1);
      }
    }
  } else if (op === 'BatchWriteItem') {
    const requests = Object.values((request.RequestItems as Record<string, Array<Record<string, { Item?: WireItem }>>>) ?? {}).flat();
    call.itemsWritten = requests.length;
    call.indexItemsWritten = requests.filter((r) => hasIndexKeys(r.PutRequest?.Item)).length;
    call.sizedUnits = requests.reduce((sum, r) => {
      const item = r.PutRequest?.Item;
      return sum + (item ? writeUnits(itemSize(item)) * (hasIndexKeys(item) ? 2 : 1) : 1);
    }, 0);
  } else if (request.ProjectionExpression || request.AttributesToGet) {
    // Reads are billed on whole items whatever the projection; the answer holds only the projected part, so no size check.
  } else if (op === 'GetItem') {
    call.sizedUnits = readUnits(itemSize(answer?.Item as WireItem | undefined), call.consistentRead);
  } else if (op === 'Query' && !request.FilterExpression) {
    const items = (answer?.Items as WireItem[] | undefined) ?? [];
    call.sizedUnits = readUnits(
      items.reduce((sum, item) => sum + itemSize(item), 0),
      call.consistentRead,
    );
  } else if (
    op === 'BatchGetItem' &&
    !Object.values((request.RequestItems as Record<string, { ProjectionExpression?: string }>) ?? {}).some((r) => r.ProjectionExpression)
  ) {
    const found = Object.values((answer?.Responses as Record<string, WireItem[]>) ?? {}).flat();
    call.sizedUnits = found.reduce((sum, item) => sum + readUnits(itemSize(item), call.consistentRead), 0);
  }
  if (op === 'Query' && (call.localUnits ?? 0) === 0) {
    call.awsUnits = call.consistentRead ? 1 : 0.5;
    call.awsIndexUnits = 0;
    call.basis = 'minimum-read';
  }
}

/** Bills a refused write as AWS does: a failed condition on the existing item's size, a cancelled transaction on each item's. */
export async function billRefused(call: DynamoCall, c: CallContext, side: SideReads): Promise<void> {
  const { op, request, transaction, before } = c;
  if (call.errorType === 'ConditionalCheckFailedException' && SINGLE_WRITES.has(op)) {
    call.itemsWritten = 0;
    call.indexItemsWritten = 0;
    if (side.sized) {
      const key = op === 'PutItem' ? keyOf(request.Item as WireItem) : (request.Key as WireItem);
      call.awsUnits = writeUnits(itemSize(await side.get(String(request.TableName), key)));
      call.basis = 'sized-failed-condition';
    } else {
      call.awsUnits = 1;
      call.basis = 'minimum-write';
    }
    call.awsIndexUnits = 0;
  } else if (call.errorType === 'TransactionCanceledException' && transaction) {
    call.transactional = true;
    call.itemsWritten = 0;
    call.indexItemsWritten = 0;
    call.awsUnits = before ? before.reduce((sum, item) => sum + 2 * writeUnits(itemSize(item)), 0) : 2 * transaction.length;
    call.awsIndexUnits = 0;
    call.basis = before ? 'sized-failed-transaction' : 'minimum-write';
  }
}
