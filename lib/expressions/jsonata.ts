import type jsonata from 'jsonata';
import { Failure } from '#platform/failure.js';

export type Jsonata = typeof jsonata;

let loading: Promise<Jsonata> | undefined;

/**
 * JSONata is loaded on the first expression, not at init: its module sets up
 * every built-in function when evaluated (about 9 ms of a cold start), and
 * the functions that bundle it handle many requests that have no expression
 * at all (an agent, approval or sub-workflow node; a definition without
 * transforms, conditions or templates). See docs/benchmarks.md, section 2.
 */
export const loadJsonata = (): Promise<Jsonata> => (loading ??= import('jsonata').then((m) => m.default));

const compiled = new Map<string, ReturnType<Jsonata>>();
async function expression(source: string): Promise<ReturnType<Jsonata>> {
  let expr = compiled.get(source);
  if (!expr) {
    expr = (await loadJsonata())(source);
    compiled.set(source, expr);
  }
  return expr;
}

export async function evaluateJsonata(source: string, input: unknown): Promise<unknown> {
  try {
    return await (await expression(source)).evaluate(input);
  } catch (error) {
    // An expression that compiles but fails on this input fails the same way every time.
    throw new Failure('expression_error', `JSONata evaluation failed: ${(error as Error).message}`, false, { cause: error });
  }
}

/** A `when` predicate: JSONata truthiness, with an undefined result as false. */
export async function edgeTaken(when: string | undefined, input: unknown): Promise<boolean> {
  if (when === undefined) return true;
  const result = await evaluateJsonata(when, input);
  return Array.isArray(result) ? result.length > 0 : Boolean(result);
}
