import { isTerminalNode } from '#execution/model.js';
import { TABLE_DEFINITION } from '#platform/table/definition.js';
import { keys } from '#platform/table/keys.js';
import type { DynamoCall } from './dynamo-billing.js';

/**
 * What a DynamoDB call the service made is for, named after the function
 * that makes it (the engine: lib/execution/executor.ts,
 * lib/execution/workflow-requests-repository.ts; runs: lib/runs/), told
 * from its keys as lib/platform/table/keys.ts builds them.
 */

type Wire = Record<string, Record<string, unknown>>;
const str = (v: unknown): string | undefined => (v as { S?: string } | undefined)?.S;

/** The parts of a request partition's keys, taken from the key builders with a placeholder id. */
const ID = '{id}';
const REQUEST_PK_PREFIX = keys.workflowRequest(ID).pk.replace(ID, '');
const REQUEST_SK = keys.workflowRequest(ID).sk;
const NODE_SK_PREFIX = keys.nodeExecutionPrefix(ID).skPrefix;
const EVENT_SK_PREFIX = keys.requestEventPrefix(ID).skPrefix;
const RUN_PK_PREFIX = keys.run(ID).pk.replace(ID, '');
const RUN_SK = keys.run(ID).sk;
const RUN_STEP_SK_PREFIX = keys.runStepPrefix(ID).skPrefix;
const RUN_EVENT_SK_PREFIX = keys.runEvent(ID, 1).sk.replace(/\d+$/, '');
const MACHINE_SK_PREFIX = keys.machinePrefix(ID).skPrefix;
const MACHINE_QUEUE_PK_PREFIX = keys.machineQueuePartition(ID).replace(ID, '');
const HARNESS_SK = keys.harness(ID).sk;
const HARNESS_FILE_SK_PREFIX = keys.harnessFile(ID, '').sk;
const IDEMPOTENCY_SK = keys.idempotency(ID).sk;
const EVALUATION_PK_PREFIX = keys.evaluationPartition(ID).replace(ID, '');
const EVALUATION_SK = keys.evaluation(ID).sk;
const EVALUATION_CASE_SK_PREFIX = keys.evaluationCase(ID, 0).sk.replace(/\d+$/, '');
const EVALUATION_SLOT_SK_PREFIX = keys.evaluationAttempt(ID, 0, 0).sk.replace(/\d+#\d+$/, '');
const RUN_LOOKUP_PK_PREFIX = keys.runAttemptPartition(ID).replace(ID, '');
const [ACCOUNT_EVENTS_PK_PREFIX, ACCOUNT_EVENTS_PK_SUFFIX] = keys.accountEventPartition(ID).split(ID) as [string, string];
const RATE_LOG_SK = keys.rateLog(ID).sk;
const ACCOUNT_PK_PREFIX = keys.account(ID).pk.replace(ID, '');
/** Items of an account's own partition, by sort key: what a transaction with runs and requests changes besides them. */
const ACCOUNT_ITEMS: ReadonlyArray<[sk: string, kind: string]> = [
  [keys.account(ID).sk, 'account'],
  [keys.inProgress(ID).sk, 'work in progress'],
  [keys.usageWindows(ID).sk, 'usage windows'],
  [keys.machineCount(ID).sk, 'machine count'],
];
const ACTIVITY_DAY_SK_PREFIX = keys.activityDay(ID, '').sk;
/** The ledger's items in an account's partition (lib/billing/ledger-repository.ts), by sort key prefix. */
const LEDGER_ITEMS: ReadonlyArray<[skPrefix: string, kind: string]> = [
  [keys.transactionTotals(ID).sk, 'ledger head'],
  [keys.transactionDayPrefix, 'ledger day'],
  [keys.transactionBlock(ID, 0).sk.replace(/\d+$/, ''), 'ledger block'],
  [keys.transactionOfKindPrefix('', '').replace(/#+$/, '#'), 'ledger copy'],
  [keys.transactionPrefix, 'ledger entry'],
];
const LEDGER_ID_PK_PREFIX = keys.transactionId(ID).pk.replace(ID, '');
const HOOK_PK_PREFIX = keys.hook(ID).pk.replace(ID, '');
const HOOK_SK = keys.hook(ID).sk;
const ENDPOINT_SK_PREFIX = keys.webhookEndpointPrefix(ID).skPrefix;
const DELIVERY_PK_PREFIX = keys.webhookDelivery(ID, ID).pk.replace(ID, '');

/**
 * `request`, `node` (the skeleton included) or `event` in a request's
 * partition; `run`, `run step` or `run events` in a run's; `evaluation`,
 * `evaluation case` or `evaluation slot` in an evaluation's; `run lookup`
 * (where a run is recorded as an attempt), `account event`, `machine`,
 * `machine queue`, `harness`, `harness file`, `idempotency record`,
 * `rate log`; in an account's partition `account`, `work in progress`,
 * `usage windows`, `machine count`, `activity day`; elsewhere the partition
 * key's prefix, e.g. `workflowversion`, `token`.
 */
export function keyKind(key: Wire | undefined): string {
  const pk = str(key?.[TABLE_DEFINITION.partitionKey]);
  const sk = str(key?.[TABLE_DEFINITION.sortKey]);
  if (pk?.startsWith(REQUEST_PK_PREFIX)) {
    if (sk === REQUEST_SK) return 'request';
    if (sk?.startsWith(NODE_SK_PREFIX)) return 'node';
    if (sk?.startsWith(EVENT_SK_PREFIX)) return 'event';
  }
  if (pk?.startsWith(RUN_PK_PREFIX)) {
    if (sk === RUN_SK) return 'run';
    if (sk?.startsWith(RUN_STEP_SK_PREFIX)) return 'run step';
    if (sk?.startsWith(RUN_EVENT_SK_PREFIX)) return 'run events';
  }
  if (pk?.startsWith(EVALUATION_PK_PREFIX)) {
    if (sk === EVALUATION_SK) return 'evaluation';
    if (sk?.startsWith(EVALUATION_CASE_SK_PREFIX)) return 'evaluation case';
    if (sk?.startsWith(EVALUATION_SLOT_SK_PREFIX)) return 'evaluation slot';
  }
  if (pk?.startsWith(RUN_LOOKUP_PK_PREFIX)) return 'run lookup';
  if (pk?.startsWith(ACCOUNT_EVENTS_PK_PREFIX) && pk.endsWith(ACCOUNT_EVENTS_PK_SUFFIX)) return 'account event';
  if (sk === RATE_LOG_SK) return 'rate log';
  if (pk?.startsWith(LEDGER_ID_PK_PREFIX)) return 'ledger id';
  if (pk?.startsWith(HOOK_PK_PREFIX)) return sk === HOOK_SK ? 'hook' : 'hook event guard';
  if (pk?.startsWith(DELIVERY_PK_PREFIX)) return 'webhook delivery';
  if (sk?.startsWith(ENDPOINT_SK_PREFIX)) return 'webhook endpoint';
  if (sk?.startsWith(MACHINE_SK_PREFIX)) return 'machine';
  if (pk?.startsWith(ACCOUNT_PK_PREFIX) && !pk.slice(ACCOUNT_PK_PREFIX.length).includes('#')) {
    const item = ACCOUNT_ITEMS.find(([itemSk]) => itemSk === sk);
    if (item) return item[1];
    if (sk?.startsWith(ACTIVITY_DAY_SK_PREFIX)) return 'activity day';
    const ledger = LEDGER_ITEMS.find(([prefix]) => sk?.startsWith(prefix));
    if (ledger) return ledger[1];
  }
  if (pk?.startsWith(MACHINE_QUEUE_PK_PREFIX)) return 'machine queue';
  if (sk === HARNESS_SK) return 'harness';
  if (sk?.startsWith(HARNESS_FILE_SK_PREFIX)) return 'harness file';
  if (sk === IDEMPOTENCY_SK) return 'idempotency record';
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

/** The runs function that makes a transaction, from what it does to the run item (lib/runs/runs-repository.ts, create and change). */
function runChangeName(action: string, status: string | undefined, kinds: string[]): string | undefined {
  if (action === 'Put') return 'createRun';
  if (action !== 'Update') return undefined;
  if (status === 'running') return 'start or resume';
  if (status === 'waiting') return 'waitFor';
  if (status !== undefined) return `endRun → ${status}`;
  if (kinds.includes('run step')) return 'record a step';
  return 'change';
}

/** The evaluations function that makes a transaction (lib/evaluations/evaluations-repository.ts), from the items it writes. */
function evaluationChangeName(entries: ReadonlyArray<{ action: string; kind: string }>): string | undefined {
  const has = (action: string, kind: string) => entries.some((e) => e.action === action && e.kind === kind);
  if (has('Put', 'evaluation')) return 'create evaluation';
  if (has('Put', 'evaluation slot')) return 'record a slot';
  if (has('Update', 'evaluation slot')) return 'recordOutcome';
  if (has('Update', 'evaluation')) return 'finish evaluation';
  return undefined;
}

/** `a + b + b + b` as `a + b ×3`: an evaluation's creation puts one item per case. */
const grouped = (items: readonly string[]): string[] =>
  items
    .reduce<Array<{ item: string; n: number }>>((runs, item) => {
      const last = runs.at(-1);
      if (last?.item === item) last.n++;
      else runs.push({ item, n: 1 });
      return runs;
    }, [])
    .map(({ item, n }) => (n > 1 ? `${item} ×${n}` : item));

function transactionPurpose(r: Record<string, unknown>, failed: string): string {
  let settles = false;
  let runChange: string | undefined;
  const entries = ((r.TransactItems as Array<Record<string, Record<string, unknown>>>) ?? []).map((entry) => {
    const [action, spec] = Object.entries(entry)[0] ?? ['?', {}];
    return { action, spec, kind: keyKind((spec.Key as Wire | undefined) ?? (spec.Item as Wire | undefined)) };
  });
  const items = entries.map(({ action, spec, kind }) => {
    const status = action === 'Update' ? statusSet(spec) : undefined;
    if (action === 'Update' && kind === 'node' && isTerminalNode(status)) settles = true;
    if (kind === 'run')
      runChange ??= runChangeName(
        action,
        status,
        entries.map((e) => e.kind),
      );
    return `${action} ${kind}${status ? ` → ${status}` : ''}`;
  });
  const name = settles ? 'settleNode: ' : runChange ? `${runChange}: ` : '';
  if (name) return `${name}TransactWriteItems (${items.join(' + ')})${failed}`;
  const evaluationChange = evaluationChangeName(entries);
  if (evaluationChange) return `${evaluationChange}: TransactWriteItems (${grouped(items).join(' + ')})${failed}`;
  return `TransactWriteItems (${items.join(' + ')})${failed}`;
}

function updatePurpose(r: Record<string, unknown>, kind: string, failed: string): string {
  const status = statusSet(r);
  if (kind === 'request') return `transitionRequest → ${status ?? '?'} (UpdateItem request item)${failed}`;
  if (kind === 'node' && mentions(r, 'done_parents')) return `markParentDone (UpdateItem child node)${failed}`;
  if (kind === 'node' && status && isTerminalNode(status)) return `settleNode → ${status} (UpdateItem node)${failed}`;
  if (kind === 'node' && status === 'in_progress' && mentions(r, 'attempt_count')) {
    // claimNode claims unread and asks for the node back if refused; transitionNode claims a node it read.
    return `claim: ${r.ReturnValuesOnConditionCheckFailure ? 'claimNode' : 'transitionNode'} → in_progress (UpdateItem node)${failed}`;
  }
  if (kind === 'node') return `transitionNode → ${status ?? '?'} (UpdateItem node)${failed}`;
  if (kind === 'run' && /^SET lease_owner/.test(String(r.UpdateExpression))) return `takeLease (UpdateItem run)${failed}`;
  if (kind === 'run' && /^SET lease_until/.test(String(r.UpdateExpression))) return `releaseLease (UpdateItem run)${failed}`;
  if (kind === 'idempotency record') return `idempotency: record the answer (UpdateItem)${failed}`;
  if (kind === 'rate log') return `rate limit: admit the request (UpdateItem rate log)${failed}`;
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
  const pk = str((r.ExpressionAttributeValues as Wire | undefined)?.[':pk']);
  if (pk?.startsWith(RUN_PK_PREFIX)) {
    if (strings.some((s) => s === RUN_STEP_SK_PREFIX)) return 'steps (Query run steps)';
    if (strings.some((s) => s?.startsWith(RUN_EVENT_SK_PREFIX))) {
      // A change of a running run finds the log's end past its event_seq (lib/runs/run-changes.ts).
      return r.ScanIndexForward === false && r.Limit === 1 ? 'lastEventSeq (Query the run log’s newest page)' : 'eventsAfter (Query run event pages)';
    }
  }
  if (pk?.startsWith(MACHINE_QUEUE_PK_PREFIX)) return 'queueHead (Query machine queue)';
  if (pk?.startsWith(EVALUATION_PK_PREFIX)) return 'whole (Query evaluation partition)';
  if (pk?.startsWith(RUN_LOOKUP_PK_PREFIX)) return 'runAttempts (Query run lookup items)';
  if (strings.some((s) => s?.startsWith(EVENT_SK_PREFIX))) {
    return r.ScanIndexForward === false && r.Limit === 1 ? 'lastEventSeq (Query newest event page)' : 'Query events';
  }
  // Another feature's partition: named by its key prefix.
  return pk ? `Query ${pk.split('#')[0]!.toLowerCase()} partition` : 'Query';
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
      // A running run's answer as it is written: a page of its log alone (lib/runs/deltas.ts).
      if (kind === 'run events') return `write message deltas: run event page (PutItem if absent)${failed}`;
      if (kind === 'request') return `create: request item (PutItem)${failed}`;
      if (kind === 'idempotency record') return `idempotency: record in progress (PutItem if absent)${failed}`;
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
      if (kind === 'run') return r.ProjectionExpression ? 'pulse (GetItem run, projected)' : 'get run (GetItem)';
      if (kind === 'harness file') return 'harnessFile: instructions (GetItem)';
      if (kind === 'harness' || kind === 'machine') return `get ${kind} (GetItem)`;
      if (kind === 'idempotency record') return 'idempotency: read the record (GetItem)';
      if (kind === 'evaluation') return 'get evaluation (GetItem)';
      if (kind === 'evaluation case') return 'caseAt (GetItem case)';
      if (kind === 'evaluation slot') return 'attempt (GetItem slot)';
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
