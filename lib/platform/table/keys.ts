/**
 * Every DynamoDB key of the service is built here (tests use the same
 * builders). The layout is documented in docs/data-model.md.
 */
export type Key = {
  pk: string;
  sk: string;
};

export const keys = {
  account: (accountId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' }),
  /** Uniqueness guard and login lookup for an email address. */
  accountEmail: (email: string): Key => ({ pk: `EMAIL#${email.trim().toLowerCase()}`, sk: 'EMAIL' }),
  session: (sessionHash: string): Key => ({ pk: `SESSION#${sessionHash}`, sk: 'SESSION' }),
  /** The credential item the bearer middleware reads, keyed by the token's SHA-256. */
  tokenByHash: (tokenHash: string): Key => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' }),
  /** The account's view of a token, keyed by its public id (list and revoke). */
  accountToken: (accountId: string, tokenId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: `TOKEN#${tokenId}` }),
  accountTokenPrefix: (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: 'TOKEN#' }),
  /** Powertools idempotency records; the key already carries the scope hash. */
  idempotency: (idempotencyKey: string): Key => ({ pk: idempotencyKey, sk: 'IDEMPOTENCY' }),
  idempotencyPrefix: 'IDEMPOTENCY',
  /** Gsi1 partition listing every account, for the operator CLI. */
  accountsIndex: () => ({ gsi1pk: 'ACCOUNTS' }),

  // --- Workflows, versions, chats (lib/workflows/workflows-repository.ts, lib/workflows/chats-repository.ts) ---
  /** A workflow, under its account: another account's workflow id never resolves. */
  workflow: (accountId: string, workflowId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: `WORKFLOW#${workflowId}` }),
  /** Gsi1 entry of a workflow: an account's workflows, newest first. */
  workflowsIndex: (accountId: string, createdAt: string, workflowId: string) => ({
    gsi1pk: `ACCOUNT#${accountId}#WORKFLOWS`,
    gsi1sk: `${createdAt}#${workflowId}`,
  }),
  workflowsIndexPartition: (accountId: string) => `ACCOUNT#${accountId}#WORKFLOWS`,
  /** An immutable workflow version, read by its id alone; the item names its account and workflow. */
  workflowVersion: (versionId: string): Key => ({ pk: `WORKFLOWVERSION#${versionId}`, sk: 'VERSION' }),
  /** A chat (the context memory identity); the item names its account. */
  chat: (chatId: string): Key => ({ pk: `CHAT#${chatId}`, sk: 'CHAT' }),

  // --- Machines (lib/machines/machines-repository.ts) ------------------------
  /**
   * A machine, under its account: another account's machine id never
   * resolves. Machine ids sort by creation time, so the account's machines
   * are one consistent Query in creation order.
   */
  machine: (accountId: string, machineId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: `MACHINE#${machineId}` }),
  machinePrefix: (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: 'MACHINE#' }),
  /** How many machines the account has (`machine_count`), raised and lowered in the transactions that create and delete them. */
  machineCount: (accountId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: 'MACHINES' }),

  // --- Workflow execution (lib/engine) -------------------------------------
  // A request, its node executions and its event log share one partition, so
  // the tree is one Query and the event log is ordered by its sort key.
  workflowRequest: (requestId: string): Key => ({ pk: `WFREQ#${requestId}`, sk: 'REQUEST' }),
  /** History of an account's requests, newest first. */
  workflowRequestIndex: (accountId: string, createdAt: string, requestId: string) => ({
    gsi1pk: `ACCOUNT#${accountId}#WFREQS`,
    gsi1sk: `${createdAt}#${requestId}`,
  }),
  workflowRequestIndexPartition: (accountId: string) => `ACCOUNT#${accountId}#WFREQS`,
  nodeExecution: (requestId: string, nodeId: string): Key => ({ pk: `WFREQ#${requestId}`, sk: `NODE#${nodeId}` }),
  nodeExecutionPrefix: (requestId: string) => ({ pk: `WFREQ#${requestId}`, skPrefix: 'NODE#' }),
  /**
   * The nodes of a request that have no item yet (lib/execution/node-skeleton.ts).
   * Its sort key is the node prefix itself, so every Query of the node items
   * reads it along; no node id is empty, so no node item can have this key.
   */
  nodeSkeleton: (requestId: string): Key => ({ pk: `WFREQ#${requestId}`, sk: 'NODE#' }),
  /** An event page, keyed by its first `seq`, zero-padded so the sort key orders numerically. */
  requestEvent: (requestId: string, seq: number): Key => ({ pk: `WFREQ#${requestId}`, sk: `EVENT#${String(seq).padStart(10, '0')}` }),
  requestEventPrefix: (requestId: string) => ({ pk: `WFREQ#${requestId}`, skPrefix: 'EVENT#' }),
  /**
   * A node execution that a redrive replaced (lib/execution/redrive.ts), kept
   * for the request's history: under the number of that redrive, zero-padded
   * so the executions sort in the order they were replaced.
   */
  redrivenNodeExecution: (requestId: string, redrive: number, nodeId: string): Key => ({
    pk: `WFREQ#${requestId}`,
    sk: `REDRIVEN#${String(redrive).padStart(10, '0')}#${nodeId}`,
  }),
  redrivenNodeExecutionPrefix: (requestId: string) => ({ pk: `WFREQ#${requestId}`, skPrefix: 'REDRIVEN#' }),

  // --- Interactions (approvals and questions) --------------------------------
  interaction: (interactionId: string): Key => ({ pk: `INTERACTION#${interactionId}`, sk: 'INTERACTION' }),
  interactionIndex: (accountId: string, createdAt: string, interactionId: string) => ({
    gsi1pk: `ACCOUNT#${accountId}#INTERACTIONS`,
    gsi1sk: `${createdAt}#${interactionId}`,
  }),
  interactionIndexPartition: (accountId: string) => `ACCOUNT#${accountId}#INTERACTIONS`,

  // --- Harnesses (lib/harnesses/harnesses-repository.ts) ---------------------
  // A harness's head item and one item per file share one partition: the
  // whole harness is one Query, one file (the instructions) one GetItem.
  /** The head: account, name, model, the parsed harness.json and the file list; written after its files. */
  harness: (harnessId: string): Key => ({ pk: `HARNESS#${harnessId}`, sk: 'HARNESS' }),
  /** One file of a harness, by its path. */
  harnessFile: (harnessId: string, path: string): Key => ({ pk: `HARNESS#${harnessId}`, sk: `FILE#${path}` }),
  /** Gsi1 entry of a harness's head: an account's harnesses, newest first. */
  harnessIndex: (accountId: string, createdAt: string, harnessId: string) => ({
    gsi1pk: `ACCOUNT#${accountId}#HARNESSES`,
    gsi1sk: `${createdAt}#${harnessId}`,
  }),
  harnessIndexPartition: (accountId: string) => `ACCOUNT#${accountId}#HARNESSES`,

  // --- Runs (lib/runs/runs-repository.ts) -------------------------------------
  // A run, its recorded steps and its event pages share one partition.
  run: (runId: string): Key => ({ pk: `RUN#${runId}`, sk: 'RUN' }),
  /** Gsi1 entry of a run: an account's runs, newest first. */
  runIndex: (accountId: string, createdAt: string, runId: string) => ({ gsi1pk: `ACCOUNT#${accountId}#RUNS`, gsi1sk: `${createdAt}#${runId}` }),
  runIndexPartition: (accountId: string) => `ACCOUNT#${accountId}#RUNS`,
  /** A recorded step of the agent loop: model turn `turn`, or the result of its call `call` (lib/runs/steps.ts). */
  runStep: (runId: string, turn: number, call?: number): Key => ({
    pk: `RUN#${runId}`,
    sk: `STEP#${String(turn).padStart(4, '0')}${call === undefined ? '' : `#${String(call).padStart(3, '0')}`}`,
  }),
  runStepPrefix: (runId: string) => ({ pk: `RUN#${runId}`, skPrefix: 'STEP#' }),
  /** A run event page, keyed by its first `seq` (lib/events/pages.ts). */
  runEvent: (runId: string, seq: number): Key => ({ pk: `RUN#${runId}`, sk: `EVENT#${String(seq).padStart(10, '0')}` }),
  /**
   * A run waiting for its machine. The queue is one partition per machine
   * sorted by priority (0: an interrupting run, 1: the rest), then creation
   * time: its first item is the next run.
   */
  machineQueueEntry: (machineId: string, priority: 0 | 1, createdAt: string, runId: string): Key => ({
    pk: `MACHINEQ#${machineId}`,
    sk: `${priority}#${createdAt}#${runId}`,
  }),
  machineQueuePartition: (machineId: string) => `MACHINEQ#${machineId}`,
  /** A finished run of a chat (input and output): the chat's history that its later runs see, oldest first. */
  chatRunTurn: (chatId: string, createdAt: string, runId: string): Key => ({ pk: `CHAT#${chatId}`, sk: `RUNTURN#${createdAt}#${runId}` }),
  chatRunTurnPrefix: (chatId: string) => ({ pk: `CHAT#${chatId}`, skPrefix: 'RUNTURN#' }),
  /** Below every finished run of the chat created at `createdAt` or later: a fork's history ends here (its source's creation). */
  chatRunTurnBound: (chatId: string, createdAt: string): Key => ({ pk: `CHAT#${chatId}`, sk: `RUNTURN#${createdAt}#` }),

  // --- Context memory (agent nodes) ------------------------------------------
  /** One partition per (context memory id, agent node); messages sort oldest first. */
  memoryMessage: (contextMemoryId: string, agentNodeId: string, order: string): Key => ({
    pk: `MEMORY#${contextMemoryId}#${agentNodeId}`,
    sk: `MSG#${order}`,
  }),
  memoryPrefix: (contextMemoryId: string, agentNodeId: string) => ({ pk: `MEMORY#${contextMemoryId}#${agentNodeId}`, skPrefix: 'MSG#' }),

  // --- Evaluations (lib/evaluations/evaluations-repository.ts) ---------------
  // An evaluation, its cases and its attempt slots share one partition: the
  // whole evaluation is one Query. Positions and attempt indexes are
  // zero-padded so the sort key orders them numerically.
  /** The head: name, harness, machine, status, counters, results. */
  evaluation: (evaluationId: string): Key => ({ pk: `EVALUATION#${evaluationId}`, sk: 'EVALUATION' }),
  evaluationPartition: (evaluationId: string) => `EVALUATION#${evaluationId}`,
  /** Gsi1 entry of an evaluation's head: an account's evaluations, newest first. */
  evaluationIndex: (accountId: string, createdAt: string, evaluationId: string) => ({
    gsi1pk: `ACCOUNT#${accountId}#EVALUATIONS`,
    gsi1sk: `${createdAt}#${evaluationId}`,
  }),
  evaluationIndexPartition: (accountId: string) => `ACCOUNT#${accountId}#EVALUATIONS`,
  /** A case, by its position in the evaluation (its id is the caller's string, kept in the item and the head). */
  evaluationCase: (evaluationId: string, position: number): Key => ({ pk: `EVALUATION#${evaluationId}`, sk: `CASE#${String(position).padStart(3, '0')}` }),
  /** The slot of one attempt `(case, attempt_index)`: put once, so a slot holds one run for ever. */
  evaluationAttempt: (evaluationId: string, position: number, attemptIndex: number): Key => ({
    pk: `EVALUATION#${evaluationId}`,
    sk: `ATTEMPT#${String(position).padStart(3, '0')}#${String(attemptIndex).padStart(3, '0')}`,
  }),
  /**
   * Where a run is recorded as an attempt: one item per evaluation that
   * recorded it, so the end of a run finds its slots with one Query, and a
   * run fills at most one slot of an evaluation (the item is put once).
   */
  runAttempt: (runId: string, evaluationId: string): Key => ({ pk: `RUNATTEMPT#${runId}`, sk: `EVALUATION#${evaluationId}` }),
  runAttemptPartition: (runId: string) => `RUNATTEMPT#${runId}`,

  // --- Account events (lib/events/account-events.ts) --------------------------
  /** One event of the account (`evaluation.completed`, …), in time order: the record outbound webhooks deliver from. */
  accountEvent: (accountId: string, createdAt: string, eventId: string): Key => ({ pk: `ACCOUNT#${accountId}#EVENTS`, sk: `${createdAt}#${eventId}` }),
  accountEventPartition: (accountId: string) => `ACCOUNT#${accountId}#EVENTS`,

  // --- Billing: the ledger, its counters, daily activity (lib/billing) --------
  // All under the account's partition but the id item. Ledger positions
  // (`seq`: 1, 2, 3… per account, no gaps) are zero-padded so the sort key
  // orders them numerically; days are UTC `YYYY-MM-DD`.
  /** A ledger entry (a billing transaction) at its position in the account's ledger. */
  transaction: (accountId: string, seq: number): Key => ({ pk: `ACCOUNT#${accountId}`, sk: `TXN#${String(seq).padStart(12, '0')}` }),
  transactionPrefix: 'TXN#',
  /** A copy of the entry in the stream of its (type, status): a filtered page reads only entries that match. */
  transactionOfKind: (accountId: string, type: string, status: string, seq: number): Key => ({
    pk: `ACCOUNT#${accountId}`,
    sk: `TXNBY#${type}#${status}#${String(seq).padStart(12, '0')}`,
  }),
  transactionOfKindPrefix: (type: string, status: string) => `TXNBY#${type}#${status}#`,
  /** A transaction by its id alone: put once (the idempotency guard), names the account and the position. */
  transactionId: (transactionId: string): Key => ({ pk: `TXNID#${transactionId}`, sk: 'TXNID' }),
  /** The ledger's head: the last position, the newest `created_at`, a count per (type, status) over the whole history. */
  transactionTotals: (accountId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: 'TXNTOTALS' }),
  /** A count per (type, status) of one UTC day's transactions, with the first and last position of that day. */
  transactionDay: (accountId: string, day: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: `TXNDAY#${day}` }),
  transactionDayPrefix: 'TXNDAY#',
  /** A count per (type, status) of the positions `block*100+1 … block*100+100`: where a filtered page starts. */
  transactionBlock: (accountId: string, block: number): Key => ({ pk: `ACCOUNT#${accountId}`, sk: `TXNBLOCK#${String(block).padStart(10, '0')}` }),
  /** One UTC day of the account's activity: cost, requests, node executions, runs. */
  activityDay: (accountId: string, day: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: `ACTIVITY#${day}` }),

  // --- Rate limits (lib/accounts/rate-limiter.ts, lib/accounts/concurrency.ts) ---
  /**
   * The account's request log: when its last `burst` admitted requests were
   * let in. A partition of its own, so the write every authenticated request
   * makes does not share the account partition's throughput.
   */
  rateLog: (accountId: string): Key => ({ pk: `RATE#${accountId}`, sk: 'RATE' }),
  /** How many workflow requests and runs of the account are in progress (`in_progress`), raised and lowered in the transactions that start and end them. */
  inProgress: (accountId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: 'INPROGRESS' }),
  /**
   * The account's usage windows (lib/usage): the 5-hour and weekly windows'
   * start and usage cost, and the extra spend of the month, on one item, so
   * a check reads one item and a cost writes one.
   */
  usageWindows: (accountId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: 'USAGE' }),

  // --- Hooks (lib/hooks) ------------------------------------------------------
  // A hook and the replay guards of its events share one partition. The hook
  // is read by its id alone (its events URL carries no account); the item
  // names its account, which every bearer route checks.
  /** A hook: name, version, entry nodes, secret versions (never a secret). */
  hook: (hookId: string): Key => ({ pk: `HOOK#${hookId}`, sk: 'HOOK' }),
  /** How many hooks the account has (lib/platform/table/counted-items.ts). */
  hookCount: (accountId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: 'HOOKS' }),
  /** Gsi1 entry of a hook: an account's hooks, newest first. */
  hooksIndex: (accountId: string, createdAt: string, hookId: string) => ({
    gsi1pk: `ACCOUNT#${accountId}#HOOKS`,
    gsi1sk: `${createdAt}#${hookId}`,
  }),
  hooksIndexPartition: (accountId: string) => `ACCOUNT#${accountId}#HOOKS`,
  /** The replay guard of one event of a hook, by the SHA-256 (base64url) of its `webhook-id`: the request it started, for 24 hours. */
  hookEvent: (hookId: string, webhookIdHash: string): Key => ({ pk: `HOOK#${hookId}`, sk: `EVENT#${webhookIdHash}` }),

  // --- Webhook endpoints and deliveries (lib/webhooks) ---
  /**
   * An outbound webhook endpoint, under its account: another account's
   * endpoint id never resolves, and the dispatcher reads an event's
   * endpoints under the event's own account. Ids sort by creation time.
   */
  webhookEndpoint: (accountId: string, endpointId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: `WEBHOOKENDPOINT#${endpointId}` }),
  webhookEndpointPrefix: (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: 'WEBHOOKENDPOINT#' }),
  /** How many webhook endpoints the account has (lib/platform/table/counted-items.ts): outside the prefix above. */
  webhookEndpointCount: (accountId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: 'WEBHOOKENDPOINTS' }),
  /**
   * One event's delivery to one endpoint, in the endpoint's own partition.
   * The delivery id is derived from (endpoint id, event id) and begins with
   * the event's time, so a repeated dispatch finds the same key and the
   * deliveries of an endpoint sort by time.
   */
  webhookDelivery: (endpointId: string, deliveryId: string): Key => ({ pk: `WEBHOOKENDPOINT#${endpointId}`, sk: `DELIVERY#${deliveryId}` }),
  webhookDeliveryPrefix: (endpointId: string) => ({ pk: `WEBHOOKENDPOINT#${endpointId}`, skPrefix: 'DELIVERY#' }),

  // --- Schedules (lib/schedules/schedules-repository.ts) ----------------------
  /** A schedule, under its account (ids sort by creation time): the account's schedules are one consistent Query, newest first. */
  schedule: (accountId: string, scheduleId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: `SCHEDULE#${scheduleId}` }),
  schedulePrefix: (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: 'SCHEDULE#' }),
  /** How many schedules the account has (lib/platform/table/counted-items.ts): outside the prefix above. */
  scheduleCount: (accountId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: 'SCHEDULES' }),
  /** Which account a schedule id is of: a firing names the schedule alone (EventBridge Scheduler sends only its id). */
  scheduleOwner: (scheduleId: string): Key => ({ pk: `SCHEDULE#${scheduleId}`, sk: 'SCHEDULE' }),
  /**
   * Gsi1 entry of an enabled schedule, sparse (absent while disabled): every
   * account's schedules by their next firing, so the local firing loop finds
   * the due ones with one Query (in AWS, EventBridge Scheduler does the timing).
   */
  scheduleDueIndex: (nextFireAt: string, scheduleId: string) => ({ gsi1pk: 'SCHEDULES#DUE', gsi1sk: `${nextFireAt}#${scheduleId}` }),
  scheduleDuePartition: 'SCHEDULES#DUE',
} as const;

/** Epoch seconds, the unit DynamoDB TTL reads. */
export const ttlFromDate = (date: Date): number => Math.floor(date.getTime() / 1000);
