import assert from 'node:assert/strict';
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
