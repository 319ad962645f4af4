import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test, vi } from 'vitest';
import type { Harness } from '#harnesses/index.js';
import type { Interaction } from '#interactions/index.js';
import type { Machine } from '#machines/index.js';
import type { McpServerRef } from '#mcp/client.js';
import { PROVIDERS } from '#models/registry.js';
import type { Completion, CompletionRequest } from '#models/types.js';
import { machineCostMicroUsd } from '#platform/config/prices.js';
import { DomainError, UnavailableError, ValidationError } from '#platform/errors.js';
import { STATUS_OF } from '#platform/http/problem.js';
import { keys } from '#platform/table/keys.js';
import type { TransactItem } from '#platform/table/transactions.js';
import { CONTINUE_MARGIN_MS, type LoopContext, type LoopDeps, runLoop } from '#runs/agent-loop.js';
import { type CreateRunDeps, createRun } from '#runs/create-run.js';
import { cancelRun, endRun } from '#runs/end-run.js';
import { keepLease, LEASE_MS, RunStopped, takeLease, WATCH_MS, watched } from '#runs/lease.js';
import type { Run, RunEventData, StepItem } from '#runs/model.js';
import { ABSENT_PAUSES_MS, moveRun } from '#runs/move-run.js';
import type { RunChange, Runs } from '#runs/run-changes.js';
import { runsRepo } from '#runs/runs-repository.js';
import type { CreateRunInput } from '#runs/schemas.js';
import type { UsageFailure } from '#usage/index.js';
import type { Chat } from '#workflows/index.js';
import { nestedTooDeep } from '../helpers/dynamodb-mock.js';
import { publishedCounts, recordMetrics } from '../helpers/metrics.js';
import { runFixture } from '../helpers/run-fixture.js';

/**
 * The runs use cases on fakes: a runs repository in memory that applies a
 * change only under the conditions the DynamoDB one puts on it (status,
 * `event_seq`, lease owner, awaited interaction, steps written once) and
 * plays the machine and queue items of its transactions; interactions,
 * machines, harnesses, chats, MCP and the wake queue as plain records; a
 * model provider registered as `fake/…` for the agent loop.
 */

const ACCOUNT = 'acc-1';
const NOW = new Date('2026-03-01T12:00:00.000Z');
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs).toISOString();
const clone = <T>(value: T): T => structuredClone(value);
let ids = 0;
const nextRunId = () => `run_t${++ids}`;

const runOf = (fields: Partial<Run> = {}): Run =>
  runFixture({
    id: nextRunId(),
    account_id: ACCOUNT,
    input: 'hello',
    harness: { model: 'fake/model', instructions: 'prompt.md', max_turns: 10, tools: [], mcp_servers: [{ name: 'srv', url: 'http://mcp.test/json' }] },
    event_seq: 2,
    running_since: at(-5_000),
    created_at: at(-6_000),
    started_at: at(-5_000),
    ...fields,
  });

const machineOf = (fields: Partial<Machine> = {}): Machine => ({
  id: 'mch_1',
  account_id: ACCOUNT,
  name: 'm',
  size: 'small',
  current_run_id: null,
  queued_runs: 0,
  created_at: at(-60_000),
  ...fields,
});

const harnessOf = (fields: Partial<Harness> = {}): Harness => ({
  id: 'h_1',
  account_id: ACCOUNT,
  name: 'h',
  model: 'local/echo',
  config: { model: 'local/echo', instructions: 'prompt.md', tools: [], mcp_servers: [], max_turns: 10 },
  files: [],
  total_bytes: 10,
  instructions_empty: false,
  created_at: at(-60_000),
  ...fields,
});

const chatOf = (fields: Partial<Chat> = {}): Chat => ({
  id: 'chat-1',
  account_id: ACCOUNT,
  title: null,
  workflow_id: null,
  machine_id: null,
  last_run_id: null,
  created_at: at(-60_000),
  ...fields,
});

type World = ReturnType<typeof world>;

/** Everything the use cases touch, in memory; `log` records wakes, creations, changes and lease releases in order. */
function world() {
  const builders = runsRepo({ db: undefined as never, tableName: 't' });
  const runs = new Map<string, Run>();
  const events = new Map<string, RunEventData[]>();
  const steps = new Map<string, StepItem>();
  const queue = new Map<string, Map<string, string>>();
  const machines = new Map<string, Machine>([['mch_1', machineOf()]]);
  const harnesses = new Map<string, Harness>([['h_1', harnessOf()]]);
  const chats = new Map<string, Chat>();
  const chatTurns: Array<{ chat_id: string; output: string }> = [];
  const interactions = new Map<string, Interaction>();
  const resolved: Array<{ id: string; status: string }> = [];
  const woken: Array<{ id: string; delaySeconds?: number; absent?: number }> = [];
  const mcpCalls: Array<{ server: string; name: string; args: Record<string, unknown> }> = [];
  const ended: string[] = [];
  const log: string[] = [];
  const refuse = { creates: 0, changes: 0 };

  /** Plays the non-run items of a transaction as DynamoDB would write them. */
  function applyItems(items: readonly TransactItem[]) {
    for (const item of items) {
      const put = item.Put?.Item as Record<string, unknown> | undefined;
      if (put?.entity === 'run_step') steps.set(`${put.pk}|${put.sk}`, clone(put) as StepItem);
      if (put?.entity === 'machine_queue_entry') {
        const entries = queue.get(put.pk as string) ?? new Map<string, string>();
        entries.set(put.sk as string, put.run_id as string);
        queue.set(put.pk as string, entries);
      }
      if (put?.entity === 'chat_run_turn') chatTurns.push({ chat_id: (put.pk as string).replace('CHAT#', ''), output: put.output as string });
      if (item.Delete) queue.get(item.Delete.Key!.pk as string)?.delete(item.Delete.Key!.sk as string);
      const update = item.Update;
      if (update && String(update.Key?.sk).startsWith('MACHINE#')) {
        const machine = [...machines.values()].find((m) => keys.machine(m.account_id, m.id).sk === update.Key!.sk)!;
        const values = update.ExpressionAttributeValues ?? {};
        const set = /SET current_run_id = (:\w+)/.exec(update.UpdateExpression ?? '');
        if (set) machine.current_run_id = (values[set[1]!] as string | null) ?? null;
        const add = /ADD queued_runs (:\w+)/.exec(update.UpdateExpression ?? '');
        if (add) machine.queued_runs += values[add[1]!] as number;
      }
      if (update && String(update.Key?.pk).startsWith('CHAT#')) {
        const chat = chats.get(String(update.Key!.pk).replace('CHAT#', ''))!;
        chat.machine_id = update.ExpressionAttributeValues![':machine'] as string;
        chat.last_run_id = update.ExpressionAttributeValues![':run'] as string;
      }
    }
  }

  const stepExists = (items: readonly TransactItem[]) =>
    items.some((item) => {
      const put = item.Put?.Item as Record<string, unknown> | undefined;
      return put?.entity === 'run_step' && steps.has(`${put.pk}|${put.sk}`);
    });

  const repo: Runs = {
    get: async (id) => clone(runs.get(id)),
    getOwned: async (accountId, id) => (runs.get(id)?.account_id === accountId ? clone(runs.get(id)) : undefined),
    async create(run, first, items) {
      log.push(`create ${run.id}`);
      if (refuse.creates > 0) {
        refuse.creates--;
        return false;
      }
      if (runs.has(run.id)) return false;
      runs.set(run.id, { ...clone(run), event_seq: first.length });
      events.set(run.id, clone(first));
      applyItems(items);
      return true;
    },
    async start(run, first, items) {
      return (await this.create(run, first, items)) ? 'started' : 'refused';
    },
    createItems: builders.createItems,
    changeItems: builders.changeItems,
    changed: builders.changed,
    async change(run: Run, change: RunChange) {
      const stored = runs.get(run.id);
      const logged = events.get(run.id)?.length ?? 0;
      // As runs().change: a running run's change follows the log's end, past its deltas; a page already there refuses it.
      const after = change.afterSeq ?? (run.status === 'running' ? Math.max(run.event_seq, logged) : run.event_seq);
      const allowed =
        stored !== undefined &&
        // Runs a test seeds directly may have fewer events logged than their event_seq says.
        logged <= after &&
        change.from.includes(stored.status) &&
        stored.event_seq === run.event_seq &&
        (change.leaseOwner === undefined || stored.lease_owner === change.leaseOwner) &&
        (change.waitingFor === undefined || stored.wait?.interaction_id === change.waitingFor) &&
        !stepExists(change.items ?? []);
      log.push(`change ${run.id} → ${change.set.status ?? '(same)'}${allowed && refuse.changes === 0 ? '' : ' refused'}`);
      if (!allowed || refuse.changes > 0) {
        refuse.changes = Math.max(0, refuse.changes - 1);
        return undefined;
      }
      const event_seq = after + change.events.length;
      runs.set(run.id, { ...stored, ...clone(change.set), event_seq } as Run);
      events.get(run.id)!.push(...clone(change.events));
      applyItems(change.items ?? []);
      const changed = { ...run, ...change.set, event_seq } as Run;
      // What follows the commit runs once it happened, as settlement runs it.
      await change.afterCommit?.(clone(changed));
      return changed;
    },
    async takeLease(runId, owner, until, now) {
      const run = runs.get(runId);
      if (run?.status !== 'running' || !(run.lease_until < now || run.lease_owner === owner || run.lease_owner === null)) return false;
      Object.assign(run, { lease_owner: owner, lease_until: until });
      return true;
    },
    async releaseLease(runId, owner) {
      log.push(`release ${runId}`);
      const run = runs.get(runId);
      if (run?.lease_owner === owner) run.lease_until = 0;
    },
    pulse: async (runId) => {
      const run = runs.get(runId);
      return run && { status: run.status, lease_owner: run.lease_owner };
    },
    steps: async (runId) =>
      [...steps.entries()]
        .filter(([key]) => key.startsWith(`RUN#${runId}|`))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([, step]) => clone(step)),
    stepPut: builders.stepPut,
    eventsFrom: async (runId, from) =>
      clone((events.get(runId) ?? []).map((data, i) => ({ seq: i + 1, created_at: '2026-11-27T00:00:00.000Z', data })).slice(from - 1)),
    watermark: async (run) => (run.status === 'running' ? Math.max(run.event_seq, events.get(run.id)?.length ?? 0) : run.event_seq),
    async appendAfter(runId, afterSeq, page) {
      const log = events.get(runId)!;
      if (log.length > afterSeq) return false;
      log.push(...clone(page));
      return true;
    },
    async queueHead(machineId) {
      const entries = [...(queue.get(keys.machineQueuePartition(machineId)) ?? new Map<string, string>())].sort(([a], [b]) => a.localeCompare(b));
      const head = entries[0];
      return head && { sk: head[0], run_id: head[1] };
    },
    queueEntryPut: builders.queueEntryPut,
    queueEntryDelete: builders.queueEntryDelete,
    chatTurns: async () => [],
    chatTurnPut: builders.chatTurnPut,
    list: () => Promise.reject(new Error('not used by the use cases')),
  };

  const money: { unfunded: UsageFailure | undefined } = { unfunded: undefined };
  const deps: CreateRunDeps & LoopDeps = {
    runs: repo,
    harnesses: { get: async (accountId, id) => (harnesses.get(id)?.account_id === accountId ? clone(harnesses.get(id)) : undefined) },
    machines: { get: async (accountId, id) => (machines.get(id)?.account_id === accountId ? clone(machines.get(id)) : undefined) },
    chats: { get: async (accountId, id) => (chats.get(id)?.account_id === accountId ? clone(chats.get(id)) : undefined) },
    interactions: {
      get: async (id) => clone(interactions.get(id)),
      async createOnce(interaction) {
        if (!interactions.has(interaction.id)) interactions.set(interaction.id, clone(interaction));
        return clone(interactions.get(interaction.id)!);
      },
      async resolve(id, status, response) {
        resolved.push({ id, status });
        const interaction = interactions.get(id);
        if (interaction?.status !== 'pending') return undefined;
        Object.assign(interaction, { status, response, resolved_at: NOW.toISOString() });
        return clone(interaction);
      },
    },
    harnessFile: async () => 'You are a test agent.',
    mcp: {
      listTools: async (server: McpServerRef) => (server.name === 'srv' ? [{ name: 'echo', inputSchema: { type: 'object' } }] : []),
      async callTool(server, name, args) {
        mcpCalls.push({ server: server.name, name, args });
        return { content: [], text: `echo: ${String(args.text)}`, isError: false };
      },
    },
    interactionTimeoutSeconds: 600,
    tableName: 't',
    async wake(run, options) {
      log.push(`wake ${run.id}`);
      woken.push({
        id: run.id,
        ...(options?.delaySeconds === undefined ? {} : { delaySeconds: options.delaySeconds }),
        ...(options?.absent === undefined ? {} : { absent: options.absent }),
      });
    },
    async runEnded(run) {
      ended.push(run.id);
    },
    announce: async () => undefined,
    money: { check: async () => money.unfunded },
    now: () => NOW,
  };

  const put = (run: Run, first: RunEventData[] = []) => {
    runs.set(run.id, clone(run));
    events.set(run.id, clone(first));
    return run;
  };
  return {
    deps,
    repo,
    runs,
    events,
    steps,
    queue,
    machines,
    harnesses,
    chats,
    chatTurns,
    interactions,
    resolved,
    woken,
    mcpCalls,
    ended,
    log,
    refuse,
    put,
    money,
  };
}

const body = (fields: Partial<CreateRunInput> = {}): CreateRunInput => ({
  harness_id: 'h_1',
  input: 'hello',
  machine_id: 'mch_1',
  if_busy: 'enqueue',
  ...fields,
});
const statusesOf = (w: World, runId: string) => w.events.get(runId)!.flatMap((e) => (e.type === 'run.status' ? [e.data.status] : []));
const fieldError = (name: string, code?: string) => (e: unknown) =>
  e instanceof ValidationError &&
  e.code === 'validation_failed' &&
  STATUS_OF[e.kind] === 422 &&
  e.options.errors?.length === 1 &&
  e.options.errors[0]!.name === name &&
  e.options.errors[0]!.location === 'body' &&
  (code === undefined || e.options.errors[0]!.code === code);

describe('createRun', () => {
  test('an unknown or another account’s harness, machine or chat is 422 naming the field, and nothing is written', async () => {
    const w = world();
    w.harnesses.set('h_other', harnessOf({ id: 'h_other', account_id: 'acc-2' }));
    w.machines.set('mch_other', machineOf({ id: 'mch_other', account_id: 'acc-2' }));
    w.chats.set('chat-other', chatOf({ id: 'chat-other', account_id: 'acc-2' }));
    const cases: Array<[Partial<CreateRunInput>, string]> = [
      [{ harness_id: 'h_nope' }, '/harness_id'],
      [{ harness_id: 'h_other' }, '/harness_id'],
      [{ machine_id: 'mch_nope' }, '/machine_id'],
      [{ machine_id: 'mch_other' }, '/machine_id'],
      [{ chat_id: 'chat-nope' }, '/chat_id'],
      [{ chat_id: 'chat-other' }, '/chat_id'],
    ];
    for (const [fields, name] of cases) await assert.rejects(createRun(w.deps, ACCOUNT, body(fields)), fieldError(name, 'not_found'), name);
    assert.deepEqual(w.log, []);
  });

  test('machine_id is required unless the chat is already bound to a machine, and must be that machine', async () => {
    const w = world();
    w.chats.set('chat-new', chatOf({ id: 'chat-new' }));
    w.chats.set('chat-bound', chatOf({ id: 'chat-bound', machine_id: 'mch_1' }));
    await assert.rejects(createRun(w.deps, ACCOUNT, body({ machine_id: undefined })), fieldError('/machine_id', 'required'));
    await assert.rejects(createRun(w.deps, ACCOUNT, body({ machine_id: undefined, chat_id: 'chat-new' })), fieldError('/machine_id', 'required'));
    await assert.rejects(createRun(w.deps, ACCOUNT, body({ machine_id: 'mch_2', chat_id: 'chat-bound' })), fieldError('/machine_id', 'chat_machine_mismatch'));
    assert.deepEqual(w.log, []);

    const run = await createRun(w.deps, ACCOUNT, body({ machine_id: undefined, chat_id: 'chat-bound' }));

    assert.equal(run.machine_id, 'mch_1');
    assert.equal(run.chat_id, 'chat-bound');
    assert.equal(w.chats.get('chat-bound')!.last_run_id, run.id, 'the run becomes the chat’s newest in the same transaction');
  });

  test('a harness whose provider is not configured or whose instructions are empty is 422 harness_not_runnable', async () => {
    const w = world();
    w.harnesses.set('h_unknown', harnessOf({ id: 'h_unknown', model: 'nosuch/model' }));
    w.harnesses.set('h_empty', harnessOf({ id: 'h_empty', instructions_empty: true }));
    for (const id of ['h_unknown', 'h_empty']) {
      await assert.rejects(
        createRun(w.deps, ACCOUNT, body({ harness_id: id })),
        (e: unknown) => e instanceof DomainError && e.code === 'harness_not_runnable' && STATUS_OF[e.kind] === 422,
      );
    }
    assert.deepEqual(w.log, []);
  });

  test('on an idle machine nobody waits for, the run starts at once: woken before the transaction that writes it running and takes the machine', async () => {
    const w = world();

    const run = await createRun(w.deps, ACCOUNT, body({ metadata: { k: 'v' } }), () => NOW);

    assert.equal(run.status, 'running');
    assert.deepEqual([run.started_at, run.running_since, run.queue_sk, run.event_seq], [NOW.toISOString(), NOW.toISOString(), null, 2]);
    assert.deepEqual(run.harness, { model: 'local/echo', instructions: 'prompt.md', tools: [], mcp_servers: [], max_turns: 10 });
    assert.deepEqual(run.metadata, { k: 'v' });
    // A run that starts always has a message: woken first, so a caller dying between the two leaves one.
    assert.deepEqual(w.log, [`wake ${run.id}`, `create ${run.id}`]);
    assert.deepEqual(statusesOf(w, run.id), ['queued', 'running']);
    assert.equal(w.machines.get('mch_1')!.current_run_id, run.id);
    assert.equal(w.queue.size, 0);
  });

  test('on a busy machine the run joins the end of its queue and is not woken', async () => {
    const w = world();
    w.machines.set('mch_1', machineOf({ current_run_id: 'run_other', queued_runs: 1 }));

    const run = await createRun(w.deps, ACCOUNT, body());

    assert.equal(run.status, 'queued');
    assert.equal(run.started_at, null);
    assert.match(run.queue_sk!, /^1#/);
    assert.deepEqual(statusesOf(w, run.id), ['queued']);
    assert.deepEqual(w.log, [`create ${run.id}`]);
    assert.equal(w.machines.get('mch_1')!.queued_runs, 2);
    assert.equal((await w.repo.queueHead('mch_1'))?.run_id, run.id);
  });

  test('if_busy reject on a chat whose last run has not ended is 409 chat_busy; once it has ended the run is created', async () => {
    const w = world();
    const previous = w.put(runOf({ chat_id: 'chat-1' }));
    w.chats.set('chat-1', chatOf({ machine_id: 'mch_1', last_run_id: previous.id }));
    w.machines.set('mch_1', machineOf({ current_run_id: previous.id }));

    await assert.rejects(
      createRun(w.deps, ACCOUNT, body({ chat_id: 'chat-1', if_busy: 'reject' })),
      (e: unknown) => e instanceof DomainError && e.code === 'chat_busy' && STATUS_OF[e.kind] === 409 && e.detail.includes(previous.id),
    );
    assert.deepEqual(w.log, []);

    w.runs.get(previous.id)!.status = 'completed';
    w.machines.set('mch_1', machineOf());
    const run = await createRun(w.deps, ACCOUNT, body({ chat_id: 'chat-1', if_busy: 'reject' }));
    assert.equal(run.status, 'running');
  });

  test('if_busy enqueue waits behind the chat’s active run, which goes on', async () => {
    const w = world();
    const previous = w.put(runOf({ chat_id: 'chat-1' }));
    w.chats.set('chat-1', chatOf({ machine_id: 'mch_1', last_run_id: previous.id }));
    w.machines.set('mch_1', machineOf({ current_run_id: previous.id }));

    const run = await createRun(w.deps, ACCOUNT, body({ chat_id: 'chat-1' }));

    assert.equal(run.status, 'queued');
    assert.match(run.queue_sk!, /^1#/);
    assert.equal(w.runs.get(previous.id)!.status, 'running');
  });

  test('if_busy interrupt queues the run at the front, then cancels the active run, whose end hands the machine to it', async () => {
    const w = world();
    const previous = w.put(runOf({ chat_id: 'chat-1' }));
    const waiting = w.put(runOf({ status: 'queued', created_at: at(-50_000) }));
    w.chats.set('chat-1', chatOf({ machine_id: 'mch_1', last_run_id: previous.id }));
    w.machines.set('mch_1', machineOf({ current_run_id: previous.id, queued_runs: 1 }));
    w.queue.set(keys.machineQueuePartition('mch_1'), new Map([[keys.machineQueueEntry('mch_1', 1, waiting.created_at, waiting.id).sk, waiting.id]]));
    w.runs.get(waiting.id)!.queue_sk = keys.machineQueueEntry('mch_1', 1, waiting.created_at, waiting.id).sk;

    const run = await createRun(w.deps, ACCOUNT, body({ chat_id: 'chat-1', if_busy: 'interrupt' }));

    assert.equal(run.status, 'queued', 'it is created queued: the machine is not free until the cancel');
    assert.match(run.queue_sk!, /^0#/);
    assert.equal(w.runs.get(previous.id)!.status, 'cancelled');
    // Ahead of a run that waited before it.
    assert.equal(w.runs.get(run.id)!.status, 'running');
    assert.equal(w.runs.get(waiting.id)!.status, 'queued');
    assert.equal(w.machines.get('mch_1')!.current_run_id, run.id);
    assert.ok(w.woken.some((wake) => wake.id === run.id));
  });

  test('a creation that loses a race reads the machine again and retries with the same id; one that keeps losing is 503', async () => {
    const w = world();
    w.refuse.creates = 1;
    const machineReads = vi.spyOn(w.deps.machines, 'get');

    const run = await createRun(w.deps, ACCOUNT, body());

    assert.equal(machineReads.mock.calls.length, 2);
    assert.deepEqual(w.log, [`wake ${run.id}`, `create ${run.id}`, `wake ${run.id}`, `create ${run.id}`]);

    w.machines.set('mch_1', machineOf());
    w.refuse.creates = Number.POSITIVE_INFINITY;
    await assert.rejects(createRun(w.deps, ACCOUNT, body()), (e: unknown) => e instanceof UnavailableError && STATUS_OF[e.kind] === 503);
  });
});

describe('cancelRun and endRun', () => {
  test('a run that has ended comes back unchanged and nothing is written', async () => {
    const w = world();
    for (const status of ['completed', 'failed', 'cancelled'] as const) {
      const run = w.put(runOf({ status, completed_at: at(-1) }));
      assert.deepEqual(await cancelRun(w.deps, run), run);
    }
    assert.deepEqual(w.log, []);
    assert.deepEqual(w.resolved, []);
  });

  test('cancelling a cancelled run again repeats what follows its end (its notice), in case the first cancel died after its transaction', async () => {
    const w = world();
    const completed = w.put(runOf({ status: 'completed', completed_at: at(-1), extra_micro_usd: 500 }));
    const cancelled = w.put(runOf({ status: 'cancelled', completed_at: at(-1), extra_micro_usd: 500 }));

    await cancelRun(w.deps, completed);
    await cancelRun(w.deps, cancelled);

    assert.deepEqual(w.ended, [cancelled.id], 'a run its worker ended has its own redelivery to repeat this');
  });

  test('a queued run leaves its machine’s queue at once, and the run holding the machine goes on', async () => {
    const w = world();
    const holder = w.put(runOf());
    const run = w.put(runOf({ status: 'queued', started_at: null, running_since: null }));
    w.machines.set('mch_1', machineOf({ current_run_id: holder.id, queued_runs: 1 }));
    const entry = w.repo.queueEntryPut(run, 1);
    w.queue.set(keys.machineQueuePartition('mch_1'), new Map([[entry.sk, run.id]]));
    w.runs.get(run.id)!.queue_sk = entry.sk;

    const cancelled = await cancelRun(w.deps, w.runs.get(run.id)!);

    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.queue_sk, null);
    assert.ok(cancelled.completed_at);
    assert.deepEqual(w.events.get(run.id), [{ type: 'run.status', data: { status: 'cancelled' } }]);
    assert.equal(await w.repo.queueHead('mch_1'), undefined);
    assert.deepEqual(w.machines.get('mch_1'), machineOf({ current_run_id: holder.id, queued_runs: 0 }));
    assert.equal(w.runs.get(holder.id)!.status, 'running');
    assert.deepEqual(w.woken, []);
  });

  test('a running run stops at once: its machine time is banked and priced, its lease dropped, and its machine goes to the next run', async () => {
    const w = world();
    const run = w.put(runOf({ lease_owner: 'worker-1', lease_until: NOW.getTime() + LEASE_MS, running_since: new Date(Date.now() - 10_000).toISOString() }));
    const next = w.put(runOf({ status: 'queued', started_at: null, running_since: null }));
    const entry = w.repo.queueEntryPut(next, 1);
    w.queue.set(keys.machineQueuePartition('mch_1'), new Map([[entry.sk, next.id]]));
    w.machines.set('mch_1', machineOf({ current_run_id: run.id, queued_runs: 1 }));

    const cancelled = await cancelRun(w.deps, run);

    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual([cancelled.lease_owner, cancelled.running_since, cancelled.failure], [null, null, null]);
    assert.ok(cancelled.machine_ms >= 10_000);
    assert.equal(cancelled.usage.cost_micro_usd, machineCostMicroUsd('small', cancelled.machine_ms));
    assert.deepEqual(statusesOf(w, run.id), ['cancelled']);
    // The next run is woken before it is started, as every start is.
    assert.deepEqual(w.log.slice(-2), [`wake ${next.id}`, `change ${next.id} → running`]);
    assert.equal(w.runs.get(next.id)!.status, 'running');
    assert.deepEqual(w.machines.get('mch_1'), machineOf({ current_run_id: next.id, queued_runs: 0 }));
  });

  test('a waiting run records its interaction’s end, then its terminal status, and the interaction is cancelled', async () => {
    const w = world();
    const wait = { interaction_id: 'i-1', type: 'approval' as const, turn: 0, call: 0 };
    const run = w.put(runOf({ status: 'waiting', wait, running_since: null }));
    w.interactions.set('i-1', { id: 'i-1', status: 'pending' } as Interaction);
    w.machines.set('mch_1', machineOf({ current_run_id: run.id }));

    await cancelRun(w.deps, run);

    assert.deepEqual(w.events.get(run.id), [
      { type: 'interaction', data: { interaction_id: 'i-1', type: 'approval', status: 'cancelled' } },
      { type: 'run.status', data: { status: 'cancelled' } },
    ]);
    assert.equal(w.interactions.get('i-1')!.status, 'cancelled');
    assert.equal(w.machines.get('mch_1')!.current_run_id, null);
  });

  test('endRun: the caller’s events first, then the wait’s end as given, then the status; a run not in `from` is left alone', async () => {
    const w = world();
    const wait = { interaction_id: 'i-2', type: 'answer' as const, turn: 1, call: 0 };
    const run = w.put(runOf({ status: 'waiting', wait, running_since: null }));
    const failure = { code: 'timeout' as const, message: 'late', retryable: false };

    assert.equal(await endRun(w.deps, run, { status: 'failed', failure }, ['running']), undefined);
    assert.deepEqual(w.log, []);

    const note: RunEventData = { type: 'message', data: { role: 'assistant', text: 'bye' } };
    const ended = await endRun(w.deps, run, { status: 'failed', failure, waitStatus: 'expired' }, ['waiting'], { events: [note] });

    assert.deepEqual(ended?.failure, failure);
    assert.deepEqual(w.events.get(run.id), [
      note,
      { type: 'interaction', data: { interaction_id: 'i-2', type: 'answer', status: 'expired' } },
      { type: 'run.status', data: { status: 'failed', failure } },
    ]);
    assert.equal(ended?.event_seq, run.event_seq + 3);
  });

  test('a cancel that loses a race with the worker reads the run again and cancels what it finds; an end already written is returned', async () => {
    const w = world();
    const run = w.put(runOf({ lease_owner: 'worker-1' }));
    w.machines.set('mch_1', machineOf({ current_run_id: run.id }));
    // The worker wrote a step after the run was read for the cancel.
    w.runs.get(run.id)!.event_seq += 3;

    const cancelled = await cancelRun(w.deps, run);

    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.event_seq, run.event_seq + 4);
    assert.deepEqual(
      w.log.filter((line) => line.startsWith('change')),
      [`change ${run.id} → cancelled refused`, `change ${run.id} → cancelled`],
    );

    const stale = { ...run, status: 'running' as const };
    assert.equal((await cancelRun(w.deps, stale)).status, 'cancelled', 'the cancel already written wins over the stale copy');
  });
});

describe('metrics', () => {
  afterEach(() => vi.unstubAllEnvs());

  test('a run created twice under one id and ended three times counts its start and its end once', async () => {
    recordMetrics();
    await publishedCounts();
    const w = world();

    const run = await createRun(w.deps, ACCOUNT, body(), () => NOW, { id: 'run_once' });
    await createRun(w.deps, ACCOUNT, body(), () => NOW, { id: 'run_once' });
    await cancelRun(w.deps, run);
    await cancelRun(w.deps, w.runs.get(run.id)!);
    const failure = { code: 'internal_error' as const, message: 'late', retryable: true };
    assert.equal(await endRun(w.deps, run, { status: 'failed', failure }, ['running']), undefined, 'a stale copy of the run ends nothing');

    assert.equal(w.runs.get(run.id)?.status, 'cancelled');
    assert.deepEqual(await publishedCounts(), { RunsStarted: 1, 'RunsEnded status=cancelled': 1 });
  });
});

describe('the lease', () => {
  const leaseRepo = (take = true) => {
    const calls: Array<{ owner: string; until: number; now: number }> = [];
    return {
      calls,
      runs: {
        takeLease: async (_runId: string, owner: string, until: number, now: number) => {
          calls.push({ owner, until, now });
          return take;
        },
      },
    };
  };

  test('takeLease asks for LEASE_MS from now; refused, the worker has none', async () => {
    const granted = leaseRepo(true);
    assert.deepEqual(await takeLease(granted.runs, 'run_1', 'w', 1_000), { owner: 'w', until: 1_000 + LEASE_MS });
    assert.deepEqual(granted.calls, [{ owner: 'w', until: 1_000 + LEASE_MS, now: 1_000 }]);
    assert.equal(await takeLease(leaseRepo(false).runs, 'run_1', 'w', 1_000), undefined);
  });

  test('keepLease renews only once half the lease is gone; a lease it cannot renew is lost', async () => {
    const repo = leaseRepo(true);
    const lease = { owner: 'w', until: 100_000 };
    await keepLease(repo.runs, 'run_1', lease, 100_000 - LEASE_MS / 2 - 1);
    assert.equal(repo.calls.length, 0);

    await keepLease(repo.runs, 'run_1', lease, 100_000 - LEASE_MS / 2);
    assert.equal(repo.calls.length, 1);
    assert.equal(lease.until, 100_000 - LEASE_MS / 2 + LEASE_MS);

    await assert.rejects(
      keepLease(leaseRepo(false).runs, 'run_1', { owner: 'w', until: 0 }, 1),
      (e: unknown) => e instanceof RunStopped && e.why === 'lease_lost',
    );
  });

  describe('watched', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    const pulses = (...answers: Array<{ status: Run['status']; lease_owner: string | null }>) => {
      const repo = leaseRepo(true);
      let reads = 0;
      return {
        repo,
        get reads() {
          return reads;
        },
        runs: { ...repo.runs, pulse: async () => answers[Math.min(reads++, answers.length - 1)] },
      };
    };
    /** A call that only ends when its signal aborts it. */
    const hanging = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));

    test('a call that ends within WATCH_MS costs no read', async () => {
      const p = pulses({ status: 'running', lease_owner: 'w' });
      assert.equal(await watched(p.runs, 'run_1', { owner: 'w', until: Date.now() + LEASE_MS }, async () => 'done'), 'done');
      await vi.advanceTimersByTimeAsync(WATCH_MS * 3);
      assert.equal(p.reads, 0);
    });

    test('a run that ended meanwhile aborts the call: RunStopped ended', async () => {
      const p = pulses({ status: 'running', lease_owner: 'w' }, { status: 'cancelled', lease_owner: null });
      const call = watched(p.runs, 'run_1', { owner: 'w', until: Date.now() + LEASE_MS }, hanging);
      const outcome = assert.rejects(call, (e: unknown) => e instanceof RunStopped && e.why === 'ended');
      await vi.advanceTimersByTimeAsync(WATCH_MS * 2);
      await outcome;
      assert.equal(p.reads, 2);
    });

    test('another worker holding the lease aborts the call: RunStopped lease_lost', async () => {
      const p = pulses({ status: 'running', lease_owner: 'other' });
      const call = watched(p.runs, 'run_1', { owner: 'w', until: Date.now() + LEASE_MS }, hanging);
      const outcome = assert.rejects(call, (e: unknown) => e instanceof RunStopped && e.why === 'lease_lost');
      await vi.advanceTimersByTimeAsync(WATCH_MS);
      await outcome;
    });

    test('a long call renews the lease as it goes, and a call that ignores the abort still ends stopped', async () => {
      const p = pulses({ status: 'running', lease_owner: 'w' });
      const lease = { owner: 'w', until: Date.now() + WATCH_MS };
      let finish: (value: string) => void = () => {};
      const call = watched(p.runs, 'run_1', lease, () => new Promise<string>((resolve) => (finish = resolve)));
      await vi.advanceTimersByTimeAsync(WATCH_MS);
      assert.equal(p.repo.calls.length, 1);
      assert.equal(lease.until, p.repo.calls[0]!.until);

      const ended = pulses({ status: 'cancelled', lease_owner: null });
      const stubborn = watched(
        ended.runs,
        'run_1',
        { owner: 'w', until: Date.now() + LEASE_MS },
        () => new Promise<string>((resolve) => setTimeout(() => resolve('late'), WATCH_MS * 2)),
      );
      const outcome = assert.rejects(stubborn, (e: unknown) => e instanceof RunStopped && e.why === 'ended');
      await vi.advanceTimersByTimeAsync(WATCH_MS * 2);
      await outcome;
      finish('done');
      assert.equal(await call, 'done');
    });
  });
});

describe('the agent loop', () => {
  /** What the fake model answers, turn after turn; every request it got. */
  let answers: Array<Partial<Completion>> = [];
  let requests: CompletionRequest[] = [];
  beforeEach(() => {
    answers = [];
    requests = [];
    PROVIDERS.fake = {
      async complete(request) {
        requests.push(clone({ ...request, signal: undefined, onText: undefined }));
        const answer = answers.shift();
        if (!answer) throw new Error('the fake model was called more often than scripted');
        return { content: '', usage: { input_tokens: 10, output_tokens: 2 }, ...answer };
      },
    };
  });
  afterEach(() => {
    Reflect.deleteProperty(PROVIDERS, 'fake');
  });

  const ctx = (owner = 'worker-1', remainingMs = 900_000, redelivered = false): LoopContext => ({ owner, remainingMs: () => remainingMs, redelivered });
  const echoCall = (id: string, text: string) => ({ tool_calls: [{ id, name: 'srv__echo', arguments: { text } }] });
  const holding = (w: World, run: Run) => {
    w.machines.set('mch_1', machineOf({ current_run_id: run.id }));
    return w.put(run);
  };

  test('a model that never gives a final answer fails the run with max_turns_exceeded after max_turns turns', async () => {
    const w = world();
    const run = holding(w, runOf({ harness: { ...runOf().harness, max_turns: 2 } }));
    answers = [echoCall('c1', 'one'), echoCall('c2', 'two')];

    await runLoop(w.deps, run, ctx());

    const ended = w.runs.get(run.id)!;
    assert.equal(ended.status, 'failed');
    assert.equal(ended.failure?.code, 'max_turns_exceeded');
    assert.equal(ended.failure?.retryable, false);
    assert.equal(requests.length, 2);
    assert.equal(w.mcpCalls.length, 2);
    assert.equal(ended.turns, 2);
    assert.deepEqual(w.events.get(run.id)!.at(-1), { type: 'run.status', data: { status: 'failed', failure: ended.failure } });
    assert.equal(w.machines.get('mch_1')!.current_run_id, null);
  });

  test('a turn DynamoDB refuses for what it holds (tool arguments nested too deep) fails the run at once with internal_error: no model call again', async () => {
    const w = world();
    const run = holding(w, runOf());
    let deep: Record<string, unknown> = { text: 'x' };
    for (let i = 0; i < 40; i++) deep = { a: deep };
    answers = [{ tool_calls: [{ id: 'c1', name: 'srv__echo', arguments: deep }] }];
    const change = w.repo.change;
    w.repo.change = async (current, step) => {
      if (step.items?.some((item) => item.Put?.Item?.entity === 'run_step')) throw nestedTooDeep();
      return change(current, step);
    };

    await runLoop(w.deps, run, ctx());

    const ended = w.runs.get(run.id)!;
    assert.equal(ended.status, 'failed');
    assert.deepEqual([ended.failure?.code, ended.failure?.retryable], ['internal_error', false]);
    assert.equal(requests.length, 1);
    assert.deepEqual(w.mcpCalls, []);
    assert.equal(w.machines.get('mch_1')!.current_run_id, null);
  });

  test('a worker taking a run over from a dead one replays what is recorded: no recorded model call or tool call is made again', async () => {
    const w = world();
    const run = holding(w, runOf({ turns: 1, event_seq: 7, lease_owner: 'dead-worker', lease_until: NOW.getTime() - 1 }));
    const call = { id: 'c1', name: 'srv__echo', arguments: { text: 'once' } };
    w.steps.set(`RUN#${run.id}|${keys.runStep(run.id, 0).sk}`, { turn: 0, content: '', tool_calls: [call], input_tokens: 10, output_tokens: 2 });
    answers = [{ content: 'final answer' }];

    // Turn 0's call has no recorded result: it is called, and only it.
    await runLoop(w.deps, run, ctx('worker-2'));

    assert.deepEqual(w.mcpCalls, [{ server: 'srv', name: 'echo', args: { text: 'once' } }]);
    assert.equal(requests.length, 1, 'only turn 1 asks the model');
    const [user, assistant, tool] = requests[0]!.messages;
    assert.deepEqual(user, { role: 'user', content: 'hello' });
    assert.deepEqual(assistant, { role: 'assistant', content: '', tool_calls: [call] });
    assert.deepEqual(tool, { role: 'tool', call_id: 'c1', name: 'srv__echo', content: 'echo: once', is_error: false });
    assert.equal(requests[0]!.system, 'You are a test agent.');
    const done = w.runs.get(run.id)!;
    assert.deepEqual([done.status, done.output, done.turns], ['completed', 'final answer', 2]);

    // A redelivered message for the ended run changes nothing and calls nothing.
    const seq = done.event_seq;
    await moveRun(w.deps, { run_id: run.id, machine_size: 'small' }, ctx('worker-3'));
    assert.equal(w.runs.get(run.id)!.event_seq, seq);
    assert.equal(requests.length, 1);
    assert.equal(w.mcpCalls.length, 1);
  });

  test('a run whose lease a live worker holds is left to it', async () => {
    const w = world();
    const run = holding(w, runOf({ lease_owner: 'worker-1', lease_until: NOW.getTime() + 1 }));
    answers = [{ content: 'never' }];

    await runLoop(w.deps, run, ctx('worker-2'));

    assert.equal(requests.length, 0);
    assert.deepEqual(w.log, []);
    assert.equal(w.runs.get(run.id)!.lease_owner, 'worker-1');
  });

  test('a redelivered message that finds a live lease comes back once the lease has run out', async () => {
    const w = world();
    const run = holding(w, runOf({ lease_owner: 'worker-1', lease_until: NOW.getTime() + 10_500 }));
    answers = [{ content: 'never' }];

    await runLoop(w.deps, run, ctx('worker-2', 900_000, true));

    assert.equal(requests.length, 0);
    assert.deepEqual(w.woken, [{ id: run.id, delaySeconds: 12 }]);
  });

  test('a worker woken just before the run’s creation committed looks again at once and runs it, without a new message', async () => {
    const w = world();
    const run = holding(w, runOf());
    const reads = vi.spyOn(w.repo, 'get').mockResolvedValueOnce(undefined);
    answers = [{ content: 'found it' }];

    await moveRun(w.deps, { run_id: run.id, machine_size: 'small' }, ctx());

    assert.equal(reads.mock.calls.length, 2);
    assert.deepEqual(w.woken, []);
    assert.equal(w.runs.get(run.id)!.output, 'found it');
  });

  test('a run still not found is looked for by a new message a second later, ten times at most', async () => {
    const w = world();
    const reads = vi.spyOn(w.repo, 'get').mockResolvedValue(undefined);
    const task = { run_id: 'run_never', machine_size: 'small' as const };

    await moveRun(w.deps, task, ctx());
    assert.equal(reads.mock.calls.length, 1 + ABSENT_PAUSES_MS.length);
    assert.deepEqual(w.woken, [{ id: 'run_never', delaySeconds: 1, absent: 1 }]);

    // A later message has had its second: it looks once.
    await moveRun(w.deps, { ...task, absent: 9 }, ctx());
    assert.equal(reads.mock.calls.length, 2 + ABSENT_PAUSES_MS.length);
    assert.deepEqual(w.woken.at(-1), { id: 'run_never', delaySeconds: 1, absent: 10 });
    await moveRun(w.deps, { ...task, absent: 10 }, ctx());
    assert.equal(w.woken.length, 2);
  });

  test('a loop short of time gives its lease up before it asks for the next message, so that message’s worker can take it', async () => {
    const w = world();
    const run = holding(w, runOf());
    let takenByNext: boolean | undefined;
    const wake = w.deps.wake;
    w.deps.wake = async (target, options) => {
      // SQS may hand the message to another worker at once.
      takenByNext = await w.repo.takeLease(target.id, 'next-worker', NOW.getTime() + LEASE_MS, NOW.getTime());
      await wake(target, options);
    };

    await runLoop(w.deps, run, ctx('worker-1', CONTINUE_MARGIN_MS - 1));

    assert.equal(requests.length, 0);
    assert.equal(takenByNext, true);
    assert.equal(w.runs.get(run.id)!.lease_owner, 'next-worker');
  });

  test('an approval the person denies is told to the model as an error result; the tool is never called and the loop goes on', async () => {
    const w = world();
    const run = holding(
      w,
      runOf({
        harness: { ...runOf().harness, tools: [{ name: 'srv__echo', require_approval: true }] },
      }),
    );
    answers = [echoCall('c1', 'secret')];

    await runLoop(w.deps, run, ctx());

    const waiting = w.runs.get(run.id)!;
    assert.equal(waiting.status, 'waiting');
    assert.equal(waiting.lease_owner, null);
    const interaction = w.interactions.get(waiting.wait!.interaction_id)!;
    assert.deepEqual([interaction.type, interaction.status, interaction.run_id], ['approval', 'pending', run.id]);
    assert.equal(interaction.expires_at, at(600_000));
    assert.deepEqual(w.woken.at(-1), { id: run.id, delaySeconds: 600 });
    assert.deepEqual(w.events.get(run.id)!.slice(-2), [
      { type: 'interaction', data: { interaction_id: interaction.id, type: 'approval', status: 'pending' } },
      { type: 'run.status', data: { status: 'waiting' } },
    ]);

    // The person says no; the answer's message moves the run on.
    await w.deps.interactions.resolve(interaction.id, 'answered', { approved: false });
    answers = [{ content: 'I will do without it.' }];
    await moveRun(w.deps, { run_id: run.id, machine_size: 'small' }, ctx('worker-2'));

    assert.equal(w.mcpCalls.length, 0);
    const told = requests[1]!.messages.at(-1)!;
    assert.equal(told.role, 'tool');
    assert.match(told.content, /denied/);
    assert.equal(told.role === 'tool' && told.is_error, true);
    const result = w.events.get(run.id)!.find((e) => e.type === 'tool_result');
    assert.deepEqual(result?.data, { call_id: 'c1', name: 'srv__echo', text: told.content, is_error: true, denied: true });
    const done = w.runs.get(run.id)!;
    assert.deepEqual([done.status, done.output], ['completed', 'I will do without it.']);
    assert.deepEqual(statusesOf(w, run.id), ['waiting', 'running', 'completed']);
  });
});

describe('run limits in the agent loop (lib/runs/limits.ts)', () => {
  let answers: Array<Partial<Completion>> = [];
  let requests = 0;
  beforeEach(() => {
    answers = [];
    requests = 0;
    PROVIDERS.fake = {
      async complete() {
        requests++;
        const answer = answers.shift();
        if (!answer) throw new Error('the fake model was called more often than scripted');
        return { content: '', usage: { input_tokens: 10, output_tokens: 2 }, ...answer };
      },
    };
  });
  afterEach(() => {
    Reflect.deleteProperty(PROVIDERS, 'fake');
  });

  const ctx = (owner = 'worker-1'): LoopContext => ({ owner, remainingMs: () => 900_000, redelivered: false });
  const echoCall = (id: string, text: string) => ({ tool_calls: [{ id, name: 'srv__echo', arguments: { text } }] });
  const holding = (w: World, run: Run) => {
    w.machines.set('mch_1', machineOf({ current_run_id: run.id }));
    return w.put(run);
  };
  const lastEvent = (w: World, run: Run) => w.events.get(run.id)!.at(-1);

  test('createRun: the harness’s limits are defaults, the run’s own win field by field; none anywhere is none', async () => {
    const w = world();
    const config = { ...harnessOf().config, limits: { max_tool_calls: 3, max_cost_micro_usd: 1_000 } };
    w.harnesses.set('h_limited', harnessOf({ id: 'h_limited', config }));

    const run = await createRun(w.deps, ACCOUNT, body({ harness_id: 'h_limited', limits: { max_tool_calls: 10, max_duration_seconds: 60 } }));

    assert.deepEqual(run.limits, { max_cost_micro_usd: 1_000, max_duration_seconds: 60, max_tool_calls: 10 });
    assert.deepEqual(w.runs.get(run.id)!.limits, run.limits, 'stored with the run');
    assert.equal('limits' in run.harness, false, 'the run’s copy of the harness keeps none');
    w.machines.set('mch_1', machineOf());
    const plain = await createRun(w.deps, ACCOUNT, body());
    assert.equal(w.runs.get(plain.id)!.limits, undefined);
  });

  test('max_tool_calls 1 and three tool calls: the first is made, the second turn taken and billed, and the run fails before the second call', async () => {
    const w = world();
    const run = holding(w, runOf({ limits: { max_tool_calls: 1 } }));
    answers = [echoCall('c1', 'one'), echoCall('c2', 'two'), echoCall('c3', 'three')];

    await runLoop(w.deps, run, ctx());

    const ended = w.runs.get(run.id)!;
    assert.equal(ended.status, 'failed');
    assert.deepEqual({ ...ended.failure, message: undefined }, { code: 'budget_exceeded', message: undefined, retryable: false, limit: 'max_tool_calls' });
    assert.deepEqual(
      w.mcpCalls.map((c) => c.args.text),
      ['one'],
    );
    assert.equal(requests, 2);
    assert.deepEqual([ended.turns, ended.tool_calls, ended.usage.input_tokens, ended.usage.output_tokens], [2, 1, 20, 4]);
    assert.ok(ended.usage.cost_micro_usd > 0);
    assert.deepEqual(lastEvent(w, run), { type: 'run.status', data: { status: 'failed', failure: ended.failure } });
    assert.equal(w.machines.get('mch_1')!.current_run_id, null, 'its machine is released like any failed run’s');
    assert.deepEqual(w.ended, [run.id]);
  });

  test('max_tool_calls: a call the person denied was not made and does not count', async () => {
    const w = world();
    const harness = { ...runOf().harness, tools: [{ name: 'srv__echo', require_approval: true }] };
    const run = holding(w, runOf({ harness, limits: { max_tool_calls: 1 } }));
    answers = [echoCall('c1', 'denied')];
    await runLoop(w.deps, run, ctx());
    await w.deps.interactions.resolve(w.runs.get(run.id)!.wait!.interaction_id, 'answered', { approved: false });
    answers = [echoCall('c2', 'approved')];

    await moveRun(w.deps, { run_id: run.id, machine_size: 'small' }, ctx('worker-2'));

    const asking = w.runs.get(run.id)!;
    assert.equal(asking.status, 'waiting', 'the second call may still be made: it asks for its approval');
    assert.equal(asking.tool_calls ?? 0, 0);
    await w.deps.interactions.resolve(asking.wait!.interaction_id, 'answered', { approved: true });
    answers = [echoCall('c3', 'over')];
    await moveRun(w.deps, { run_id: run.id, machine_size: 'small' }, ctx('worker-3'));
    const ended = w.runs.get(run.id)!;
    assert.deepEqual(
      w.mcpCalls.map((c) => c.args.text),
      ['approved'],
    );
    assert.deepEqual([ended.status, ended.failure?.limit, ended.tool_calls], ['failed', 'max_tool_calls', 1]);
  });

  test('max_cost_micro_usd: checked before the tool call that follows a model turn; the turn is recorded and billed', async () => {
    const w = world();
    // 5 s of machine time (50 µ$) so far, under 60; the first turn's tokens (fake/model at openai's default: 45 µ$) take it past.
    const run = holding(w, runOf({ limits: { max_cost_micro_usd: 60 } }));
    answers = [echoCall('c1', 'one'), { content: 'never asked' }];

    await runLoop(w.deps, run, ctx());

    const ended = w.runs.get(run.id)!;
    assert.deepEqual([ended.status, ended.failure?.code, ended.failure?.limit], ['failed', 'budget_exceeded', 'max_cost_micro_usd']);
    assert.equal(requests, 1);
    assert.deepEqual(w.mcpCalls, []);
    assert.ok(ended.usage.cost_micro_usd >= 60, JSON.stringify(ended.usage));
    assert.equal(ended.usage.input_tokens, 10);
  });

  test('max_duration_seconds: reached before the first model turn (5 s running already), the run fails without calling the model', async () => {
    const w = world();
    const run = holding(w, runOf({ limits: { max_duration_seconds: 5 } }));

    await runLoop(w.deps, run, ctx());

    const ended = w.runs.get(run.id)!;
    assert.deepEqual([ended.status, ended.failure?.limit], ['failed', 'max_duration_seconds']);
    assert.equal(requests, 0);
  });

  test('max_duration_seconds: an hour waiting for an approval does not count; approved, the call is made and the run completes', async () => {
    const w = world();
    const harness = { ...runOf().harness, tools: [{ name: 'srv__echo', require_approval: true }] };
    const run = holding(w, runOf({ harness, limits: { max_duration_seconds: 6 } }));
    answers = [echoCall('c1', 'later')];
    w.deps.now = () => new Date(NOW.getTime() + 500);
    await runLoop(w.deps, run, ctx());
    const waiting = w.runs.get(run.id)!;
    assert.deepEqual([waiting.status, waiting.machine_ms, waiting.running_since], ['waiting', 5_500, null], 'its active time is banked');

    const hourLater = NOW.getTime() + 3_600_000;
    w.deps.now = () => new Date(hourLater);
    await w.deps.interactions.resolve(waiting.wait!.interaction_id, 'answered', { approved: true });
    answers = [{ content: 'done' }];
    await moveRun(w.deps, { run_id: run.id, machine_size: 'small' }, ctx('worker-2'));

    const done = w.runs.get(run.id)!;
    assert.deepEqual([done.status, done.output, done.failure], ['completed', 'done', null]);
    assert.equal(w.mcpCalls.length, 1);
  });
});
