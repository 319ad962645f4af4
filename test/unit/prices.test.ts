import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { MACHINE_SIZES } from '#machines/index.js';
import { priceTableMarkdown, withPriceTable } from '#platform/config/price-table.js';
import {
  MACHINE_SECOND_MICRO_USD,
  MODEL_PRICES,
  machineCostMicroUsd,
  NODE_EXECUTION_FEE_MICRO_USD,
  PROVIDER_DEFAULT_PRICES,
  tokenCostMicroUsd,
  tokenPrice,
} from '#platform/config/prices.js';
import type { Run } from '#runs/model.js';
import { leaveRunning, machineMsAt, usageOf } from '#runs/usage.js';

describe('the price table', () => {
  test('every price is a whole number of microdollars', () => {
    const prices = [
      ...Object.values(MODEL_PRICES).flatMap((p) => [p.input_per_million, p.output_per_million]),
      ...Object.values(PROVIDER_DEFAULT_PRICES).flatMap((p) => [p.input_per_million, p.output_per_million]),
      ...Object.values(MACHINE_SECOND_MICRO_USD),
    ];
    for (const price of prices) assert.ok(Number.isSafeInteger(price) && price >= 0, String(price));
  });

  test('a listed model costs its own price, input and output apart', () => {
    // gpt-4o-mini: 0.15 and 0.60 USD per million tokens.
    assert.equal(tokenCostMicroUsd('openai/gpt-4o-mini', 1_000_000, 0), 150_000);
    assert.equal(tokenCostMicroUsd('openai/gpt-4o-mini', 0, 1_000_000), 600_000);
    assert.equal(tokenCostMicroUsd('local/echo', 3, 2), 3 + 4);
    assert.equal(tokenCostMicroUsd('local/echo', 0, 0), 0);
  });

  test('a model missing from the table costs its provider’s default; an unknown provider the OpenAI default', () => {
    assert.deepEqual(tokenPrice('openai/some-new-model'), PROVIDER_DEFAULT_PRICES.openai);
    assert.deepEqual(tokenPrice('bedrock/anthropic.claude-next'), PROVIDER_DEFAULT_PRICES.bedrock);
    assert.deepEqual(tokenPrice('local/other'), PROVIDER_DEFAULT_PRICES.local);
    assert.deepEqual(tokenPrice('nosuch/model'), PROVIDER_DEFAULT_PRICES.openai);
    assert.deepEqual(tokenPrice('no-slash'), PROVIDER_DEFAULT_PRICES.openai);
    // Bedrock's default (3 and 15 USD per million) is not OpenAI's.
    assert.equal(tokenCostMicroUsd('bedrock/anthropic.claude-next', 1_000, 1_000), 3_000 + 15_000);
  });

  test('a cost is rounded up to a whole microdollar once, on the totals', () => {
    // 7 input tokens of gpt-4o-mini are 1.05 µUSD: 2 µUSD, not 7 × ⌈0.15⌉ = 7.
    assert.equal(tokenCostMicroUsd('openai/gpt-4o-mini', 7, 0), 2);
    assert.equal(tokenCostMicroUsd('openai/gpt-4o-mini', 1, 0), 1);
    // Input and output are added before rounding: 0.15 + 0.6 = 0.75, one microdollar.
    assert.equal(tokenCostMicroUsd('openai/gpt-4o-mini', 1, 1), 1);
    for (const [input, output] of [
      [1, 0],
      [13, 7],
      [123_457, 98_765],
    ] as const) {
      const cost = tokenCostMicroUsd('openai/gpt-4.1-mini', input, output);
      assert.ok(Number.isInteger(cost));
      const exact = (input * 400_000 + output * 1_600_000) / 1e6;
      assert.ok(cost >= exact && cost - exact < 1, `${cost} for ${exact}`);
    }
  });

  test('machine time is priced per started second, by size, and a size without a price is refused', () => {
    assert.deepEqual(
      MACHINE_SIZES.map((size) => MACHINE_SECOND_MICRO_USD[size]),
      [10, 20, 40],
    );
    assert.equal(machineCostMicroUsd('small', 0), 0);
    assert.equal(machineCostMicroUsd('small', 1), 10);
    assert.equal(machineCostMicroUsd('small', 1_000), 10);
    assert.equal(machineCostMicroUsd('small', 1_001), 20);
    assert.equal(machineCostMicroUsd('medium', 60_000), 1_200);
    assert.equal(machineCostMicroUsd('large', 2_500), 120);
    assert.throws(() => machineCostMicroUsd('huge', 1_000), /No price for machine size huge/);
  });
});

describe('the price table as the README and the OpenAPI document show it', () => {
  test('one row per listed model, provider default and machine size, and the node fee, in USD from the microdollars', () => {
    const table = priceTableMarkdown();
    const rows = table.split('\n').slice(2);
    assert.equal(
      rows.length,
      Object.keys(MODEL_PRICES).length + Object.keys(PROVIDER_DEFAULT_PRICES).length + Object.keys(MACHINE_SECOND_MICRO_USD).length + 1,
    );
    const cells = rows.map((row) =>
      row
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim())
        .join(' | '),
    );
    assert.ok(cells.includes('model `openai/gpt-4o-mini`, per million tokens | $0.15 input, $0.6 output'));
    assert.ok(cells.includes('machine time, `small`, per second | $0.00001 (10 µ$)'));
    assert.ok(cells.includes(`node execution (flat fee, on top of its tokens) | $0.0001 (${NODE_EXECUTION_FEE_MICRO_USD} µ$)`));
    assert.equal(new Set(rows.map((row) => row.length)).size, 1, 'padded to the column widths');
  });

  test('the README block between its markers is replaced, the rest kept; no markers, no change', () => {
    const start = '<!-- price table: written by `npm run openapi` from lib/platform/config/prices.ts -->';
    const end = '<!-- end of price table -->';
    const readme = `before\n${start}\nold table\n${end}\nafter`;
    assert.equal(withPriceTable(readme), `before\n${start}\n\n${priceTableMarkdown()}\n\n${end}\nafter`);
    assert.equal(withPriceTable('no block here'), 'no block here');
  });
});

describe('a run’s usage', () => {
  const run = (fields: Partial<Run> = {}) =>
    ({
      harness: { model: 'openai/gpt-4o-mini', instructions: 'p', max_turns: 1, tools: [], mcp_servers: [] },
      machine_size: 'medium',
      machine_ms: 1_500,
      running_since: '2026-01-01T00:00:00.000Z',
      usage: { input_tokens: 7, output_tokens: 0, cost_micro_usd: 0 },
      ...fields,
    }) as Run;

  test('is priced from its totals: tokens of the harness’s model plus machine time of its size', () => {
    assert.deepEqual(usageOf(run(), { input: 7, output: 0 }, 1_500), { input_tokens: 7, output_tokens: 0, cost_micro_usd: 2 + 2 * 20 });
  });

  test('machine time accrues only while running, and leaving running banks it', () => {
    const now = new Date('2026-01-01T00:00:02.000Z');
    assert.equal(machineMsAt(run(), now), 3_500);
    assert.equal(machineMsAt(run({ running_since: null }), now), 1_500);
    assert.equal(machineMsAt(run({ running_since: '2026-01-01T00:00:05.000Z' }), now), 1_500, 'a clock behind the start adds nothing');
    assert.deepEqual(leaveRunning(run(), now), {
      machine_ms: 3_500,
      running_since: null,
      usage: { input_tokens: 7, output_tokens: 0, cost_micro_usd: 2 + 4 * 20 },
    });
  });
});
