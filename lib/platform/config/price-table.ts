import { MACHINE_SECOND_MICRO_USD, MODEL_PRICES, NODE_EXECUTION_FEE_MICRO_USD, PROVIDER_DEFAULT_PRICES, type TokenPrice } from './prices.js';

/**
 * The price table as Markdown, rendered from prices.ts: the OpenAPI
 * document's description and README's "Prices" section show this very text
 * (`npm run openapi` writes both), so neither can drift from what is charged.
 */

/** Microdollars as USD, without trailing zeros: 150000 → `$0.15`, 10 → `$0.00001`. */
const usd = (micro: number): string => `$${(micro / 1_000_000).toFixed(6).replace(/\.?0+$/, '')}`;
const tokens = (price: TokenPrice) => `${usd(price.input_per_million)} input, ${usd(price.output_per_million)} output`;

export function priceTableMarkdown(): string {
  const rows: Array<[string, string]> = [
    ...Object.entries(MODEL_PRICES).map(([model, price]): [string, string] => [`model \`${model}\`, per million tokens`, tokens(price)]),
    ...Object.entries(PROVIDER_DEFAULT_PRICES).map(([provider, price]): [string, string] => [
      `any other \`${provider}/…\` model, per million tokens`,
      tokens(price),
    ]),
    ...Object.entries(MACHINE_SECOND_MICRO_USD).map(([size, micro]): [string, string] => [
      `machine time, \`${size}\`, per second`,
      `${usd(micro)} (${micro} µ$)`,
    ]),
    ['node execution (flat fee, on top of its tokens)', `${usd(NODE_EXECUTION_FEE_MICRO_USD)} (${NODE_EXECUTION_FEE_MICRO_USD} µ$)`],
  ];
  // Padded to the column widths, as the formatter (biome) lays Markdown tables out.
  const all: Array<[string, string]> = [['Usage', 'Price'], ...rows];
  const width = [0, 1].map((i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(width[i]!)).join(' | ')} |`;
  return [line(all[0]!), line(width.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const START = '<!-- price table: written by `npm run openapi` from lib/platform/config/prices.ts -->';
const END = '<!-- end of price table -->';

/** README with its price table block rewritten; unchanged when it has no such block. */
export function withPriceTable(readme: string): string {
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) return readme;
  return `${readme.slice(0, from + START.length)}\n\n${priceTableMarkdown()}\n\n${readme.slice(to)}`;
}
