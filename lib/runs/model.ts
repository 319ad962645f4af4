import { limitsInOrder, type RunLimitName, type RunLimits } from '#harnesses/model.js';
import type { MachineSize } from '#machines/index.js';
import type { TransactItem } from '#platform/table/transactions.js';

/**
 * A run (decisions.md, Run): its statuses, failure codes, the item as
 * stored and the run as the API shows it.
 */

export const RUN_STATUSES = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A run that has ended: it will never change again. */
export const RUN_TERMINAL: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];
export const isTerminal = (status: RunStatus): boolean => RUN_TERMINAL.includes(status);

/** `failure.code` of a failed run (decisions.md, Run; `max_turns_exceeded` is ours; `budget_exceeded`: a run limit, lib/runs/limits.ts). */
export const RUN_FAILURE_CODES = [
  'usage_window_exceeded',
  'out_of_funds',
  'model_error',
  'upstream_unavailable',
  'timeout',
  'max_turns_exceeded',
  'budget_exceeded',
  'cancelled_by_parent',
  'internal_error',
] as const;
export type RunFailureCode = (typeof RUN_FAILURE_CODES)[number];

export interface RunFailure {
  code: RunFailureCode;
  message: string;
  retryable: boolean;
  /** With `budget_exceeded`: the limit the run reached. */
  limit?: RunLimitName;
}

export interface RunUsage {
  input_tokens: number;
  output_tokens: number;
  cost_micro_usd: number;
}

/** What a run waits for while `waiting`: a person's answer to one interaction, for the call `call` of model turn `turn`. */
export interface RunWait {
  interaction_id: string;
  type: 'approval' | 'answer';
  turn: number;
  call: number;
}

/** A run's `input` is at most this many bytes of JSON (it is kept on the run item and sent to the model). */
export const RUN_INPUT_MAX_BYTES = 100_000;

/** `run_`, 9 base-36 digits of creation time, 16 base64url characters (lib/platform/ids.ts). */
export const RUN_ID = /^run_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/;

/** The busy policy of a run created on a chat whose previous run has not ended. */
export const IF_BUSY = ['enqueue', 'reject', 'interrupt'] as const;
export type IfBusy = (typeof IF_BUSY)[number];

/** The harness as a run keeps it (harnesses are immutable, so a copy taken at creation stays true). */
export interface RunHarness {
  model: string;
  instructions: string;
  max_turns: number;
  tools: Array<{ name: string; require_approval: boolean }>;
  mcp_servers: Array<{ name: string; url: string }>;
}

export interface Run {
  id: string;
  account_id: string;
  status: RunStatus;
  harness_id: string;
  machine_id: string;
  machine_size: MachineSize;
  chat_id: string | null;
  input: unknown;
  metadata: Record<string, unknown> | null;
  output: string | null;
  failure: RunFailure | null;
  usage: RunUsage;
  harness: RunHarness;
  /** Sort key of its machine queue entry while queued (lib/platform/table/keys.ts, machineQueueEntry). */
  queue_sk: string | null;
  /**
   * The seq of the last event a change of the run wrote: every change
   * writes its events and raises this in one transaction. While the run is
   * `running`, its lease holder's `message.delta` events may follow it
   * (written without a change, lib/runs/deltas.ts): the log's end is then
   * found from its newest page, and the next change's events follow them.
   */
  event_seq: number;
  /** Model turns recorded so far. */
  turns: number;
  wait: RunWait | null;
  /** The worker whose lease holds the loop, and until when (epoch ms). */
  lease_owner: string | null;
  lease_until: number;
  /** When the run last entered `running`; machine time accrues from there until it leaves. */
  running_since: string | null;
  /** Machine time used (ms) before `running_since`. */
  machine_ms: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  /**
   * The part of `usage.cost_micro_usd` extra usage funded (recorded with
   * each cost, lib/usage), debited from the wallet once when the run ends.
   * Absent on runs created before metering: 0.
   */
  extra_micro_usd?: number;
  /** The run holds one of the account's slots of work in progress (lib/accounts, concurrency.ts), given back by its end. */
  concurrency_slot?: boolean;
  /**
   * Written by earlier versions only (each delta was then a change of the
   * run): the turn whose deltas start at `from_seq`. A worker playing that
   * turn again reads its logged text from there (lib/runs/deltas.ts).
   */
  stream?: { turn: number; from_seq: number };
  /** Its effective limits (its own over its harness's, lib/runs/limits.ts); absent when it has none. */
  limits?: RunLimits;
  /** Tool calls made so far (a denied call is not made), for `limits.max_tool_calls`. Absent: none. */
  tool_calls?: number;
  /** A fork (lib/runs/fork-run.ts): the run and the event it was forked at. Absent: not a fork. */
  forked_from?: ForkedFrom;
  /** A fork on a chat: the chat's runs created before this time (its source's creation) are its history, as they were its source's. */
  chat_history_before?: string;
}

/** Where a fork comes from (`forked_from`), and where a copied event of its log does (`data.reused_from`): a run and one of its event seqs. */
export interface ForkedFrom {
  run_id: string;
  seq: number;
}

/** The run as the API shows it (decisions.md, Run). */
export const runView = (run: Run) => ({
  id: run.id,
  status: run.status,
  harness_id: run.harness_id,
  machine_id: run.machine_id,
  chat_id: run.chat_id,
  input: run.input,
  output: run.output,
  failure: run.failure,
  usage: run.usage,
  limits: run.limits ? limitsInOrder(run.limits) : null,
  forked_from: run.forked_from ?? null,
  metadata: run.metadata,
  created_at: run.created_at,
  started_at: run.started_at,
  completed_at: run.completed_at,
});
export type RunView = ReturnType<typeof runView>;

/** What a run's events record (decisions.md, Run event): written with each change, in its transaction. */
export const RUN_EVENT_TYPES = ['run.status', 'message', 'message.delta', 'tool_call', 'tool_result', 'interaction', 'usage'] as const;
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

export type RunEventData =
  | { type: 'run.status'; data: { status: RunStatus; failure?: RunFailure } }
  | { type: 'message'; data: { role: 'user' | 'assistant'; text: string } }
  /** A piece of the assistant's answer while it is produced; `restart` discards the turn's deltas before it (lib/runs/deltas.ts). */
  | { type: 'message.delta'; data: { text: string; restart?: boolean } }
  | { type: 'tool_call'; data: { call_id: string; name: string; arguments: Record<string, unknown> } }
  | { type: 'tool_result'; data: { call_id: string; name: string; text: string; is_error: boolean; denied?: boolean } }
  | { type: 'interaction'; data: { interaction_id: string; type: 'approval' | 'answer'; status: string } }
  | { type: 'usage'; data: { input_tokens: number; output_tokens: number; cost_micro_usd: number } };

/** A change of a run, as the run's own items write it. */
export interface RunWrite {
  /** Fields of the run to set (`status`, `output`, …). */
  set: Partial<Omit<Run, 'id' | 'account_id' | 'event_seq'>>;
  /** The statuses the run must still have. */
  from: readonly RunStatus[];
  /** The worker that must still hold the lease. */
  leaseOwner?: string;
  /** The interaction the run must still wait for. */
  waitingFor?: string;
  events: RunEventData[];
  /** Other items of the run's feature written in the same transaction (its machine, a queue entry, a step). */
  items?: TransactItem[];
  /** The seq the events follow, when not `event_seq`: the log's end past it, where a running run's deltas lie (lib/runs/deltas.ts). */
  afterSeq?: number;
}

/** A recorded step: a model turn (`call` absent) or one call's result. */
export type StepItem = Record<string, unknown> & { turn: number; call?: number };
