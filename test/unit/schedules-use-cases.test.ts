import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, test } from 'vitest';
import type { Account } from '#accounts/index.js';
import { limitsInForce } from '#accounts/index.js';
import { ConflictError, DomainError, RateLimitedError, UnavailableError, ValidationError } from '#platform/errors.js';
import { newScheduleId } from '#platform/ids.js';
import { recordDeadFiring } from '#schedules/dead-firings.js';
import { sendDueFirings } from '#schedules/due-firings.js';
import { type FireDeps, fire, fireScheduled } from '#schedules/fire.js';
import { firingRequestId, firingRunId } from '#schedules/firing-ids.js';
import type { Firing, Schedule } from '#schedules/model.js';
import { createSchedule, deleteSchedule, type ScheduleDeps, updateSchedule } from '#schedules/schedules.js';
import type { ScheduleTimer } from '#schedules/timer.js';

/** The schedules repository in memory, with the table's revision condition. */
function memorySchedules() {
  const items = new Map<string, Schedule>();
  const owners = new Map<string, string>();
  let refuseSaves = 0;
  return {
    items,
    owners,
    /** The next `n` saves lose to "another write" (their condition fails) once each. */
    refuseNextSaves(n: number) {
      refuseSaves = n;
    },
    async create(s: Schedule) {
      owners.set(s.id, s.account_id);
      items.set(s.id, structuredClone(s));
      return s;
    },
    async get(accountId: string, id: string) {
      const s = items.get(id);
      return s && s.account_id === accountId ? structuredClone(s) : undefined;
    },
    async owner(id: string) {
      return owners.get(id);
    },
    async find(id: string) {
      const accountId = owners.get(id);
      return accountId ? this.get(accountId, id) : undefined;
    },
    async save(read: Pick<Schedule, 'revision'>, next: Schedule) {
      const current = items.get(next.id);
      if (refuseSaves > 0) {
        refuseSaves--;
        if (current) items.set(next.id, { ...current, revision: current.revision + 1 });
        return undefined;
      }
      if (!current || current.revision !== read.revision) return undefined;
      const written = { ...structuredClone(next), revision: read.revision + 1 };
      items.set(next.id, written);
      return structuredClone(written);
    },
    async delete(accountId: string, id: string) {
      const s = items.get(id);
      if (!s || s.account_id !== accountId) return false;
      items.delete(id);
      return true;
    },
    async removeOwner(id: string) {
      owners.delete(id);
    },
    async due(now: Date, limit: number) {
      return [...items.values()]
        .filter((s) => s.enabled && s.next_fire_at !== null && Date.parse(s.next_fire_at) <= now.getTime())
        .slice(0, limit)
        .map((s) => structuredClone(s));
    },
  };
}

function recordingTimer() {
  const calls: Array<['put', { id: string; enabled: boolean; expression: string }] | ['remove', string]> = [];
  let failPuts = 0;
  const timer: ScheduleTimer = {
    async put(s) {
      if (failPuts > 0) {
        failPuts--;
        throw new Error('scheduler down');
      }
      calls.push(['put', { id: s.id, enabled: s.enabled, expression: s.expression }]);
    },
    async remove(id) {
      calls.push(['remove', id]);
    },
  };
  return { timer, calls, failNextPut: () => (failPuts = 1) };
}

const accountId = randomUUID();
const account: Account = { id: accountId, suspended: false, plan: 'pro', balance_micro_usd: 10_000_000, extra_usage: false } as Account;
const versionId = randomUUID();
const entry = randomUUID();
const NOW = new Date('2027-03-01T10:00:30.000Z');

const schedule = (overrides: Partial<Schedule> = {}): Schedule => ({
  id: newScheduleId(),
  account_id: accountId,
  name: 'daily',
  expression: 'rate(1 minute)',
  timezone: 'UTC',
  target: { workflow_version_id: versionId, entry_node_ids: [entry], payload: { a: 1 } },
  enabled: true,
  next_fire_at: '2027-03-01T10:01:00.000Z',
  last_fired_at: null,
  last_error: null,
  anchored_at: '2027-03-01T09:00:00.000Z',
  revision: 1,
  created_at: '2027-03-01T09:00:00.000Z',
  updated_at: '2027-03-01T09:00:00.000Z',
  ...overrides,
});

let schedules: ReturnType<typeof memorySchedules>;
let timer: ReturnType<typeof recordingTimer>;
let started: Array<{ id?: string; input: Record<string, unknown> }>;
let created: Array<{ id: string; body: Record<string, unknown>; concurrency?: number }>;
let existingRuns: Set<string>;
let startFails: unknown;
let machine: { current_run_id: string | null; queued_runs: number } | undefined;

const fireDeps = (): FireDeps => ({
  schedules,
  starter: {
    async start(_accountId, input, options) {
      if (startFails) throw startFails;
      if (!started.some((s) => s.id === options.id)) started.push({ id: options.id, input: input as unknown as Record<string, unknown> });
      return { id: options.id ?? randomUUID() };
    },
  },
  runs: {
    async getOwned(_a, id) {
      return existingRuns.has(id) ? ({ id } as never) : undefined;
    },
    async create(_a, body, id, options) {
      if (startFails) throw startFails;
      created.push({ id, body, ...(options?.concurrency === undefined ? {} : { concurrency: options.concurrency }) });
      existingRuns.add(id);
      return { id } as never;
    },
  },
  machines: { get: async () => machine },
  accounts: { get: async () => account },
  usage: { admit: async () => undefined },
  timer: timer.timer,
  clock: () => NOW,
});

beforeEach(() => {
  schedules = memorySchedules();
  timer = recordingTimer();
  started = [];
  created = [];
  existingRuns = new Set();
  startFails = undefined;
  machine = { current_run_id: null, queued_runs: 0 };
});

describe('a firing', () => {
  test('starts the target’s request under the id derived from (schedule, scheduled time), with metadata; records last_fired_at and moves next_fire_at on', async () => {
    const s = await schedules.create(schedule());
    const outcome = await fireScheduled(fireDeps(), { schedule_id: s.id, scheduled_at: '2027-03-01T10:00:00Z' });
    const at = '2027-03-01T10:00:00.000Z';
    assert.deepEqual(outcome, { scheduled_at: at, workflow_request_id: firingRequestId(s.id, at) });
    assert.deepEqual(started, [
      {
        id: firingRequestId(s.id, at),
        input: { workflow_version_id: versionId, entry_node_ids: [entry], payload: { a: 1 }, metadata: { schedule_id: s.id, scheduled_at: at } },
      },
    ]);
    const after = schedules.items.get(s.id)!;
    assert.equal(after.last_fired_at, at);
    assert.equal(after.last_error, null);
    assert.equal(after.next_fire_at, '2027-03-01T10:01:00.000Z');
  });

  test('a duplicate delivery of one scheduled time, in either precision, makes nothing twice', async () => {
    const s = await schedules.create(schedule());
    await fireScheduled(fireDeps(), { schedule_id: s.id, scheduled_at: '2027-03-01T10:00:00.000Z' });
    assert.equal(await fireScheduled(fireDeps(), { schedule_id: s.id, scheduled_at: '2027-03-01T10:00:00Z' }), undefined);
    assert.equal(started.length, 1);
  });

  test('a run target creates its run under the derived id; a redelivery finds it and does not look at the busy machine again', async () => {
    const s = await schedules.create(
      schedule({ target: { harness_id: 'h_1', machine_id: 'mch_1', input: 'go', if_busy: 'reject' }, expression: 'cron(0 * * * *)' }),
    );
    const at = '2027-03-01T10:00:00.000Z';
    const first = await fire(fireDeps(), s, at);
    assert.deepEqual(first.outcome, { scheduled_at: at, run_id: firingRunId(s.id, at) });
    assert.deepEqual(created[0]!.body, { harness_id: 'h_1', machine_id: 'mch_1', input: 'go', metadata: { schedule_id: s.id, scheduled_at: at } });
    assert.equal(created[0]!.concurrency, limitsInForce(account).concurrency, 'within the account’s ceiling on work in progress, as POST /v2/runs');
    machine = { current_run_id: firingRunId(s.id, at), queued_runs: 0 };
    const again = await fire(fireDeps(), schedules.items.get(s.id)!, at);
    assert.deepEqual(again.outcome, { scheduled_at: at, run_id: firingRunId(s.id, at) });
    assert.equal(created.length, 1);
    assert.equal(firingRunId(s.id, at).startsWith(`run_${Date.parse(at).toString(36).padStart(9, '0')}`), true);
  });

  test('`if_busy: reject` on a busy machine makes nothing and records machine_busy; `enqueue` queues', async () => {
    machine = { current_run_id: 'run_other', queued_runs: 0 };
    const s = await schedules.create(schedule({ target: { harness_id: 'h_1', machine_id: 'mch_1', input: 'go', if_busy: 'reject' } }));
    const fired = await fire(fireDeps(), s, '2027-03-01T10:00:00.000Z');
    assert.equal(created.length, 0);
    assert.equal(fired.refusal?.code, 'machine_busy');
    assert.equal(schedules.items.get(s.id)!.last_error?.code, 'machine_busy');
    const q = await schedules.create(schedule({ target: { harness_id: 'h_1', machine_id: 'mch_1', input: 'go', if_busy: 'enqueue' } }));
    await fire(fireDeps(), q, '2027-03-01T10:00:00.000Z');
    assert.equal(created.length, 1);
  });

  test('refused by the account: last_error with the problem’s code, no throw (no retry), and the same firing delivered again is not tried', async () => {
    const s = await schedules.create(schedule());
    startFails = new RateLimitedError('At the limit of work in progress.', 3);
    const outcome = await fireScheduled(fireDeps(), { schedule_id: s.id, scheduled_at: '2027-03-01T10:00:00Z' });
    assert.deepEqual(outcome, {
      scheduled_at: '2027-03-01T10:00:00.000Z',
      error: { code: 'rate_limited', message: 'At the limit of work in progress.', at: NOW.toISOString(), scheduled_at: '2027-03-01T10:00:00.000Z' },
    });
    const after = schedules.items.get(s.id)!;
    assert.equal(after.enabled, true);
    assert.equal(after.last_error?.code, 'rate_limited');
    assert.equal(after.last_fired_at, null);
    startFails = undefined;
    assert.equal(await fireScheduled(fireDeps(), { schedule_id: s.id, scheduled_at: '2027-03-01T10:00:00Z' }), undefined);
    assert.equal(started.length, 0);
    // The next firing that makes its request clears it.
    await fireScheduled(fireDeps(), { schedule_id: s.id, scheduled_at: '2027-03-01T10:01:00Z' });
    assert.equal(schedules.items.get(s.id)!.last_error, null);
  });

  test('a target that is gone disables the schedule and its timer, with a clear last_error', async () => {
    const s = await schedules.create(schedule());
    startFails = new ValidationError([
      { name: '/workflow_version_id', location: 'body', reason: 'is not a version of this account', code: 'invalid_reference' },
    ]);
    await fireScheduled(fireDeps(), { schedule_id: s.id, scheduled_at: '2027-03-01T10:00:00Z' });
    const after = schedules.items.get(s.id)!;
    assert.equal(after.enabled, false);
    assert.equal(after.next_fire_at, null);
    assert.equal(after.last_error?.code, 'target_not_found');
    assert.match(after.last_error!.message, /workflow_version_id: is not a version of this account.*disabled/);
    assert.deepEqual(timer.calls, [['put', { id: s.id, enabled: false, expression: 'rate(1 minute)' }]]);
  });

  test('what is not a refusal throws (the queue retries): 503, DynamoDB errors', async () => {
    const s = await schedules.create(schedule());
    startFails = new UnavailableError('try again');
    await assert.rejects(fireScheduled(fireDeps(), { schedule_id: s.id, scheduled_at: '2027-03-01T10:00:00Z' }), UnavailableError);
    startFails = new Error('ProvisionedThroughputExceededException');
    await assert.rejects(fireScheduled(fireDeps(), { schedule_id: s.id, scheduled_at: '2027-03-01T10:00:00Z' }), /Provisioned/);
    assert.equal(schedules.items.get(s.id)!.last_error, null);
  });

  test('a deleted or disabled schedule fires nothing from the queue', async () => {
    const off = await schedules.create(schedule({ enabled: false, next_fire_at: null }));
    assert.equal(await fireScheduled(fireDeps(), { schedule_id: off.id, scheduled_at: '2027-03-01T10:00:00Z' }), undefined);
    assert.equal(await fireScheduled(fireDeps(), { schedule_id: newScheduleId(), scheduled_at: '2027-03-01T10:00:00Z' }), undefined);
    assert.equal(started.length, 0);
  });

  test('recording loses to another write: read again and applied to what is there; a late firing never moves last_fired_at or next_fire_at back', async () => {
    const s = await schedules.create(schedule({ last_fired_at: '2027-03-01T10:05:00.000Z', next_fire_at: '2027-03-01T10:06:00.000Z' }));
    schedules.refuseNextSaves(2);
    await fire(fireDeps(), s, '2027-03-01T10:00:00.000Z');
    const after = schedules.items.get(s.id)!;
    assert.equal(after.last_fired_at, '2027-03-01T10:05:00.000Z');
    assert.equal(after.next_fire_at, '2027-03-01T10:06:00.000Z');
  });

  test('a dead firing is recorded as internal_error unless it was made', async () => {
    const s = await schedules.create(schedule({ last_fired_at: '2027-03-01T10:00:00.000Z' }));
    await recordDeadFiring({ schedules, clock: () => NOW }, { schedule_id: s.id, scheduled_at: '2027-03-01T10:00:00Z' });
    assert.equal(schedules.items.get(s.id)!.last_error, null);
    await recordDeadFiring({ schedules, clock: () => NOW }, { schedule_id: s.id, scheduled_at: '2027-03-01T10:01:00Z' });
    assert.equal(schedules.items.get(s.id)!.last_error?.code, 'internal_error');
  });
});

describe('the local loop’s pass', () => {
  test('sends each due firing, then moves next_fire_at past now; a second pass sends nothing', async () => {
    const s = await schedules.create(schedule({ next_fire_at: '2027-03-01T10:00:00.000Z' }));
    await schedules.create(schedule({ next_fire_at: '2027-03-01T10:05:00.000Z' }));
    const sent: Firing[] = [];
    const deps = { schedules, send: async (f: Firing) => void sent.push(f), clock: () => NOW };
    assert.equal(await sendDueFirings(deps), 1);
    assert.deepEqual(sent, [{ schedule_id: s.id, scheduled_at: '2027-03-01T10:00:00.000Z' }]);
    assert.equal(schedules.items.get(s.id)!.next_fire_at, '2027-03-01T10:01:00.000Z');
    assert.equal(await sendDueFirings(deps), 0);
  });

  test('a schedule due long ago fires once, then goes on from now; one another write moved meanwhile is left as it is', async () => {
    const stale = await schedules.create(schedule({ next_fire_at: '2027-02-01T00:00:00.000Z' }));
    const sent: Firing[] = [];
    await sendDueFirings({ schedules, send: async (f) => void sent.push(f), clock: () => NOW });
    assert.equal(sent.length, 1);
    assert.equal(schedules.items.get(stale.id)!.next_fire_at, '2027-03-01T10:01:00.000Z');

    const moved = await schedules.create(schedule({ next_fire_at: '2027-03-01T10:00:00.000Z' }));
    await sendDueFirings({
      schedules,
      send: async () => {
        // The worker recorded the firing first (next_fire_at moved on by it).
        const current = schedules.items.get(moved.id)!;
        schedules.items.set(moved.id, { ...current, next_fire_at: '2027-03-01T10:02:00.000Z', revision: current.revision + 1 });
      },
      clock: () => NOW,
    });
    assert.equal(schedules.items.get(moved.id)!.next_fire_at, '2027-03-01T10:02:00.000Z');
  });
});

describe('create, change, delete', () => {
  const deps = (): ScheduleDeps => ({ schedules, targets: { check: async () => undefined }, timer: timer.timer, clock: () => NOW });
  const body = {
    name: 'n',
    expression: 'cron( 0 9 * * mon )',
    timezone: 'Europe/Berlin',
    target: { workflow_version_id: versionId, entry_node_ids: [entry] },
    enabled: true,
  };

  test('create stores the canonical expression and the next firing, then puts the timer', async () => {
    const s = await createSchedule(deps(), accountId, body);
    assert.equal(s.expression, 'cron(0 9 * * MON)');
    assert.equal(s.next_fire_at, '2027-03-08T08:00:00.000Z');
    assert.deepEqual(s.target, { workflow_version_id: versionId, entry_node_ids: [entry] });
    assert.deepEqual(timer.calls, [['put', { id: s.id, enabled: true, expression: 'cron(0 9 * * MON)' }]]);
    const disabled = await createSchedule(deps(), accountId, { ...body, enabled: false });
    assert.equal(disabled.next_fire_at, null);
  });

  test('a run target defaults if_busy to enqueue', async () => {
    const s = await createSchedule(deps(), accountId, { ...body, target: { harness_id: 'h_1', machine_id: 'mch_1', input: 'hi' } });
    assert.deepEqual(s.target, { harness_id: 'h_1', machine_id: 'mch_1', input: 'hi', if_busy: 'enqueue' });
  });

  test('a timer that cannot be set takes the new schedule back out', async () => {
    timer.failNextPut();
    await assert.rejects(createSchedule(deps(), accountId, body), /scheduler down/);
    assert.equal(schedules.items.size, 0);
    assert.equal(schedules.owners.size, 0);
  });

  test('a target the check refuses is refused before anything is written', async () => {
    const refusing: ScheduleDeps = {
      ...deps(),
      targets: {
        check: async () => {
          throw new ValidationError([{ name: '/target/machine_id', location: 'body', reason: 'no', code: 'invalid_reference' }]);
        },
      },
    };
    await assert.rejects(createSchedule(refusing, accountId, body), (e) => e instanceof DomainError && e.code === 'validation_failed');
    assert.equal(schedules.items.size, 0);
  });

  test('PATCH enabled:false clears next_fire_at and puts the timer disabled; enabling again counts a rate from now; a repeat puts again', async () => {
    const s = await createSchedule(deps(), accountId, { ...body, expression: 'rate(5 minutes)' });
    assert.equal(s.next_fire_at, '2027-03-01T10:05:30.000Z');
    const off = await updateSchedule(deps(), accountId, s.id, { enabled: false });
    assert.equal(off.next_fire_at, null);
    await updateSchedule(deps(), accountId, s.id, { enabled: false });
    assert.deepEqual(
      timer.calls.slice(1).map((c) => c[1]),
      [
        { id: s.id, enabled: false, expression: 'rate(5 minutes)' },
        { id: s.id, enabled: false, expression: 'rate(5 minutes)' },
      ],
    );
    const later = new Date('2027-03-01T11:00:10.000Z');
    const on = await updateSchedule({ ...deps(), clock: () => later }, accountId, s.id, { enabled: true });
    assert.equal(on.next_fire_at, '2027-03-01T11:05:10.000Z');
    const renamed = await updateSchedule({ ...deps(), clock: () => new Date('2027-03-01T11:01:00.000Z') }, accountId, s.id, { name: 'other' });
    assert.equal(renamed.next_fire_at, '2027-03-01T11:05:10.000Z');
  });

  test('PATCH of another account’s or an unknown schedule is 404; a write lost to another is read again', async () => {
    const s = await createSchedule(deps(), accountId, body);
    await assert.rejects(updateSchedule(deps(), randomUUID(), s.id, { enabled: false }), (e) => e instanceof DomainError && e.code === 'not_found');
    schedules.refuseNextSaves(1);
    assert.equal((await updateSchedule(deps(), accountId, s.id, { name: 'x' })).name, 'x');
  });

  test('delete removes the schedule, its timer and its owner; a delete that failed part-way is finished by the next; a stranger gets 404', async () => {
    const s = await createSchedule(deps(), accountId, body);
    await assert.rejects(deleteSchedule(deps(), randomUUID(), s.id), (e) => e instanceof DomainError && e.code === 'not_found');
    const failing = { ...deps(), timer: { ...timer.timer, remove: async () => Promise.reject(new ConflictError('x', 'scheduler down')) } };
    await assert.rejects(deleteSchedule(failing, accountId, s.id));
    assert.equal(schedules.items.has(s.id), false);
    await deleteSchedule(deps(), accountId, s.id);
    assert.deepEqual(timer.calls.at(-1), ['remove', s.id]);
    assert.equal(schedules.owners.has(s.id), false);
    await assert.rejects(deleteSchedule(deps(), accountId, s.id), (e) => e instanceof DomainError && e.code === 'not_found');
  });
});
