import type { RunIdempotent } from './idempotency-key.js';

/**
 * The idempotency of a create whose answer shows a secret once, without the
 * secret in the table: the answer is stored with `secret: null` in its
 * place, and every answer, first or replayed, gets it back from
 * `secretOf(answer)` (derived again from the service key, never stored).
 * Without an Idempotency-Key the handler's own answer is sent as it is.
 */
export function secretKeptOut(run: RunIdempotent, secretOf: (answer: Record<string, unknown>) => Promise<string>): RunIdempotent {
  return async (call, context, execute) => {
    const answer = await run(call, context, async () => {
      const fresh = await execute();
      return { ...fresh, body: JSON.stringify({ ...(JSON.parse(fresh.body) as Record<string, unknown>), secret: null }) };
    });
    if (answer.statusCode !== 201) return answer;
    const body = JSON.parse(answer.body) as Record<string, unknown>;
    return { ...answer, body: JSON.stringify({ ...body, secret: await secretOf(body) }) };
  };
}
