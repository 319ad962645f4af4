import type { Run } from '#runs/model.js';

/** The fields of a run item every fixture shares; callers give what their case is about. */
const DEFAULTS: Omit<Run, 'id' | 'account_id'> = {
  status: 'running',
  harness_id: 'h_1',
  machine_id: 'mch_1',
  machine_size: 'small',
  chat_id: null,
  input: 'hi',
  metadata: null,
  output: null,
  failure: null,
  usage: { input_tokens: 0, output_tokens: 0, cost_micro_usd: 0 },
  harness: { model: 'local/echo', instructions: '', max_turns: 10, tools: [], mcp_servers: [] },
  queue_sk: null,
  event_seq: 0,
  turns: 0,
  wait: null,
  lease_owner: null,
  lease_until: 0,
  running_since: null,
  machine_ms: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: null,
  completed_at: null,
};

/** A run item as the repository stores it, for tests and the bench that write or fake runs directly. */
export const runFixture = (fields: Pick<Run, 'id' | 'account_id'> & Partial<Run>): Run => ({ ...DEFAULTS, ...fields });
