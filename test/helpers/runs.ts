import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { vi } from 'vitest';
import type { Json } from './api.js';

/** GET /v2/runs/{id} until `until` holds for the run (20 s at most); the run as last read. */
export async function runWhen(get: (path: string) => Promise<{ body: Json }>, id: string, until: (run: Json) => boolean): Promise<Json> {
  let last: Json = {};
  await vi.waitFor(
    async () => {
      last = (await get(`/v2/runs/${id}`)).body;
      assert.ok(until(last), `run ${id} is ${JSON.stringify(last)}`);
    },
    { timeout: 20_000, interval: 50 },
  );
  return last;
}

type Call = (method: string, path: string, token: string, body?: unknown) => Promise<{ status: number; body: Json }>;

/** A machine of the token's account, made through POST /v1/machines; its id. */
export async function newMachine(call: Call, token: string): Promise<string> {
  const created = await call('POST', '/v1/machines', token, { name: `m ${randomUUID().slice(0, 6)}` });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}
