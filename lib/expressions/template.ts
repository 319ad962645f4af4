/**
 * `{{ expression }}` templates in node configs (the http node's url, header
 * values and the string leaves of its body): each `{{ }}` is a JSONata
 * expression over the node input. Pure string handling, shared by the
 * runner and by definition validation (which compiles every expression).
 *
 * An expression ends at the first `}}`, so it cannot itself contain `}}`
 * (write `} }` inside an object constructor). A `{{` without a closing `}}`
 * is literal text.
 */

const TEMPLATE = /\{\{([\s\S]*?)\}\}/g;

/** The expressions of every `{{ }}` in `text`, in order. */
export function templateExpressions(text: string): string[] {
  return [...text.matchAll(TEMPLATE)].map((m) => m[1]!);
}

/** The expression when `text` is exactly one `{{ }}` and nothing else. */
export function wholeTemplate(text: string): string | undefined {
  const matches = [...text.matchAll(TEMPLATE)];
  return matches.length === 1 && matches[0]![0] === text ? matches[0]![1] : undefined;
}

type Evaluate = (expression: string) => Promise<unknown>;

/** A value interpolated into a string: strings as they are, nothing for undefined, anything else as JSON. */
const asText = (value: unknown): string => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** Replaces every `{{ }}` in `text` by its result as text. */
export async function renderString(text: string, evaluate: Evaluate): Promise<string> {
  const matches = [...text.matchAll(TEMPLATE)];
  if (matches.length === 0) return text;
  let out = '';
  let last = 0;
  for (const match of matches) {
    out += text.slice(last, match.index) + asText(await evaluate(match[1]!));
    last = match.index! + match[0].length;
  }
  return out + text.slice(last);
}

/**
 * Renders every string leaf of a JSON value. A string that is exactly one
 * `{{ }}` becomes the expression's result with its JSON type (an object, a
 * number...); other strings are interpolated as text. Keys are not templated.
 */
export async function renderValue(value: unknown, evaluate: Evaluate): Promise<unknown> {
  if (typeof value === 'string') {
    const whole = wholeTemplate(value);
    return whole !== undefined ? evaluate(whole) : renderString(value, evaluate);
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) out.push(await renderValue(item, evaluate));
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = await renderValue(item, evaluate);
    return out;
  }
  return value;
}

/** Every string leaf of a JSON value that holds templates, with its path (for validation pointers). */
export function templatedLeaves(value: unknown, path: Array<string | number> = []): Array<{ path: Array<string | number>; expressions: string[] }> {
  if (typeof value === 'string') {
    const expressions = templateExpressions(value);
    return expressions.length > 0 ? [{ path, expressions }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => templatedLeaves(item, [...path, i]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => templatedLeaves(item, [...path, key]));
  return [];
}
