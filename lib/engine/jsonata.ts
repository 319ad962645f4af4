import jsonata from 'jsonata';
import { NodeFailure } from './node-failure.js';

const compiled = new Map<string, ReturnType<typeof jsonata>>();
function expression(source: string): ReturnType<typeof jsonata> {
  let expr = compiled.get(source);
  if (!expr) {
    expr = jsonata(source);
    compiled.set(source, expr);
  }
  return expr;
}

export async function evaluateJsonata(source: string, input: unknown): Promise<unknown> {
  try {
    return await expression(source).evaluate(input);
  } catch (error) {
    // An expression that compiles but fails on this input fails the same way every time.
    throw new NodeFailure('expression_error', `JSONata evaluation failed: ${(error as Error).message}`, false);
  }
}

/** A `when` predicate: JSONata truthiness, with an undefined result as false. */
export async function edgeTaken(when: string | undefined, input: unknown): Promise<boolean> {
  if (when === undefined) return true;
  const result = await evaluateJsonata(when, input);
  return Array.isArray(result) ? result.length > 0 : Boolean(result);
}
