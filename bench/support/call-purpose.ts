import { isTerminalNode } from '#execution/workflow-requests-repository.js';
import { TABLE_DEFINITION } from '#platform/table/definition.js';
import { keys } from '#platform/table/keys.js';
import type { DynamoCall } from './dynamo-billing.js';

/**
 * What a DynamoDB call the engine made is for, named after the engine
 * function that makes it (lib/execution/executor.ts,
 * lib/execution/workflow-requests-repository.ts), told from its keys as
 * lib/platform/table/keys.ts builds them.
 */

type Wire = Record<string, Record<string, unknown>>;
const str = (v: unknown): string | undefined => (v as { S?: string } | undefined)?.S;

/** The parts of a request partition's keys, taken from the key builders with a placeholder id. */
const ID = '{id}';
const REQUEST_PK_PREFIX = keys.workflowRequest(ID).pk.replace(ID, '');
const REQUEST_SK = keys.workflowRequest(ID).sk;
const NODE_SK_PREFIX = keys.nodeExecutionPrefix(ID).skPrefix;
const EVENT_SK_PREFIX = keys.requestEventPrefix(ID).skPrefix;

/** `request`, `node` (the skeleton included) or `event` in a request's partition; elsewhere the partition key's prefix, e.g. `workflowversion`, `token`. */
function keyKind(key: Wire | undefined): string {
  const pk = str(key?.[TABLE_DEFINITION.partitionKey]);
  const sk = str(key?.[TABLE_DEFINITION.sortKey]);
  if (pk?.startsWith(REQUEST_PK_PREFIX)) {
    if (sk === REQUEST_SK) return 'request';
    if (sk?.startsWith(NODE_SK_PREFIX)) return 'node';
    if (sk?.startsWith(EVENT_SK_PREFIX)) return 'event';
  }
  return (pk ?? '?').split('#')[0]!.toLowerCase();
}

const namesOf = (request: Record<string, unknown>): Record<string, string> => (request.ExpressionAttributeNames as Record<string, string>) ?? {};

/** The value an update expression assigns to `status`, if any. */
function statusSet(request: Record<string, unknown>): string | undefined {
  const names = namesOf(request);
  const values = (request.ExpressionAttributeValues as Wire) ?? {};
  for (const m of String(request.UpdateExpression ?? '').matchAll(/(#[\w]+)\s*=\s*(:[\w]+)/g)) {
    if (names[m[1]!] === 'status') return str(values[m[2]!]);
  }
  return undefined;
}

const mentions = (request: Record<string, unknown>, attribute: string): boolean =>
  String(request.UpdateExpression ?? '').includes(attribute) || Object.values(namesOf(request)).includes(attribute);

function transactionPurpose(r: Record<string, unknown>, failed: string): string {
  let settles = false;
  const items = ((r.TransactItems as Array<Record<string, Record<string, unknown>>>) ?? []).map((entry) => {
    const [action, spec] = Object.entries(entry)[0] ?? ['?', {}];
    const itemKind = keyKind((spec.Key as Wire | undefined) ?? (spec.Item as Wire | undefined));
    const status = action === 'Update' ? statusSet(spec) : undefined;
    if (action === 'Update' && itemKind === 'node' && isTerminalNode(status)) settles = true;
    return `${action} ${itemKind}${status ? ` → ${status}` : ''}`;
  });
  return `${settles ? 'settleNode: ' : ''}TransactWriteItems (${items.join(' + ')})${failed}`;
}

function updatePurpose(r: Record<string, unknown>, kind: string, failed: string): string {
  const status = statusSet(r);
  if (kind === 'request') return `transitionRequest → ${status ?? '?'} (UpdateItem request item)${failed}`;
  if (kind === 'node' && mentions(r, 'done_parents')) return `markParentDone (UpdateItem child node)${failed}`;
  if (kind === 'node' && status && isTerminalNode(status)) return `settleNode → ${status} (UpdateItem node)${failed}`;
  if (kind === 'node' && status === 'in_progress' && mentions(r, 'attempt_count')) return `claim: transitionNode → in_progress (UpdateItem node)${failed}`;
  if (kind === 'node') return `transitionNode → ${status ?? '?'} (UpdateItem node)${failed}`;
  return `UpdateItem ${kind}${failed}`;
}

function queryPurpose(r: Record<string, unknown>): string {
  const strings = Object.values((r.ExpressionAttributeValues as Wire) ?? {}).map(str);
  if (r.IndexName) return `Query ${String(r.IndexName)}`;
  if (strings.some((s) => s === NODE_SK_PREFIX)) {
    return r.FilterExpression && Object.values(namesOf(r)).includes('status')
      ? 'hasOpenNodes (Query node items, filtered on status)'
      : 'listNodes (Query node items)';
  }
  if (strings.some((s) => s?.startsWith(EVENT_SK_PREFIX))) {
    return r.ScanIndexForward === false && r.Limit === 1 ? 'lastEventSeq (Query newest event page)' : 'Query events';
  }
  return 'Query';
}

export function purposeOf(call: DynamoCall): string {
  const r = call.request ?? {};
  const failed = call.errorType ? ` (${call.errorType === 'ConditionalCheckFailedException' ? 'condition failed' : call.errorType})` : '';
  const kind = keyKind((r.Key as Wire | undefined) ?? (r.Item as Wire | undefined));
  switch (call.op) {
    case 'TransactWriteItems':
      return transactionPurpose(r, failed);
    case 'UpdateItem':
      return updatePurpose(r, kind, failed);
    case 'PutItem':
      if (kind === 'event') return `appendEvents: write event page (PutItem if absent)${failed}`;
      if (kind === 'request') return `create: request item (PutItem)${failed}`;
      return `PutItem ${kind}${failed}`;
    case 'BatchWriteItem': {
      const requests = Object.values((r.RequestItems as Record<string, Array<{ PutRequest?: { Item?: Wire }; DeleteRequest?: { Key?: Wire } }>>) ?? {}).flat();
      const kinds = [...new Set(requests.map((q) => keyKind(q.PutRequest?.Item ?? q.DeleteRequest?.Key)))];
      if (kinds.length === 1 && kinds[0] === 'event') return 'appendEvents: write events (BatchWriteItem)';
      if (kinds.length === 1 && kinds[0] === 'node') return 'create: node executions and skeleton (BatchWriteItem)';
      return `BatchWriteItem (${kinds.join(', ')} items)`;
    }
    case 'GetItem':
      if (kind === 'request') return 'get request (GetItem)';
      if (kind === 'node') return 'getNode (GetItem)';
      if (kind === 'workflowversion') return 'getVersion (GetItem)';
      return `GetItem ${kind}`;
    case 'Query':
      return queryPurpose(r);
    case 'BatchGetItem': {
      const first = Object.values((r.RequestItems as Record<string, { Keys?: Wire[] }>) ?? {})[0]?.Keys?.[0];
      return `BatchGetItem ${keyKind(first)} (bearer authentication)`;
    }
    default:
      return call.op;
  }
}

/** Units of the same call if every item were at the minimum size. */
export function floorUnits(call: DynamoCall): number {
  if (call.kind === 'write') {
    if (call.status !== 200) return call.basis === 'none' ? 0 : (call.transactional ? 2 : 1) * Math.max(1, call.itemsWritten ?? 1);
    return (call.transactional ? 2 : 1) * ((call.itemsWritten ?? 1) + (call.indexItemsWritten ?? 0));
  }
  if (call.kind === 'read') {
    const each = call.consistentRead ? 1 : 0.5;
    if (call.op === 'BatchGetItem') {
      const keys = Object.values((call.request?.RequestItems as Record<string, { Keys?: unknown[] }>) ?? {}).reduce((n, r) => n + (r.Keys?.length ?? 0), 0);
      return each * Math.max(1, keys);
    }
    return each;
  }
  return 0;
}
