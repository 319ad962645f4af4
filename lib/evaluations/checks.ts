import { edgeTaken, loadJsonata } from '#expressions/jsonata.js';
import type { FieldError } from '#platform/errors.js';
import { type Run, runView } from '#runs/model.js';
import type { AttemptOutcome, EndedRunStatus, Expected } from './model.js';

/**
 * The checks a case may carry (`expected`) and the grading of a run's
 * output against them. A check is compiled when the evaluation is created,
 * so a pattern or an expression that cannot run is a 422 naming it, never a
 * failed attempt later.
 */

/** The longest output a regex is tried on: patterns are the caller's, and backtracking grows with the text. */
const REGEX_INPUT_MAX = 100_000;

/** Why a check cannot be compiled, or undefined when it can. */
async function compileFault(expected: Expected): Promise<string | undefined> {
  if (expected.type === 'regex') {
    try {
      new RegExp(expected.value);
      return undefined;
    } catch (error) {
      return `is not a valid regular expression: ${(error as Error).message}`;
    }
  }
  if (expected.type === 'jsonata') {
    try {
      (await loadJsonata())(expected.value);
      return undefined;
    } catch (error) {
      const { message, position } = error as { message?: string; position?: number };
      return `is not a valid JSONata expression: ${message ?? 'syntax error'}${typeof position === 'number' ? ` (at character ${position})` : ''}`;
    }
  }
  return undefined;
}

/** One 422 entry per check that does not compile, naming `/cases/<i>/expected/value`. */
export async function checkFaults(cases: ReadonlyArray<{ expected?: Expected | null }>): Promise<FieldError[]> {
  const faults: FieldError[] = [];
  for (const [i, c] of cases.entries()) {
    if (!c.expected) continue;
    const reason = await compileFault(c.expected);
    if (reason) {
      faults.push({
        name: `/cases/${i}/expected/value`,
        location: 'body',
        reason,
        code: c.expected.type === 'regex' ? 'invalid_pattern' : 'invalid_expression',
      });
    }
  }
  return faults;
}

/**
 * What a run's end makes of an attempt: its status, and with a check
 * whether the output passed it. A run that did not complete fails its check.
 * A JSONata predicate gets `{input, output, run}` (the run as the API shows
 * it) and passes when its result is truthy; one that throws fails, with
 * its error as `check_error`.
 */
export async function outcomeOf(expected: Expected | null, run: Run): Promise<AttemptOutcome> {
  const run_status = run.status as EndedRunStatus;
  if (!expected) return { run_status, passed: null, check_error: null };
  if (run.status !== 'completed') return { run_status, passed: false, check_error: `the run ${run.status === 'failed' ? 'failed' : 'was cancelled'}` };
  const output = run.output ?? '';
  switch (expected.type) {
    case 'exact':
      return { run_status, passed: output === expected.value, check_error: null };
    case 'contains':
      return { run_status, passed: output.includes(expected.value), check_error: null };
    case 'regex':
      return { run_status, passed: new RegExp(expected.value).test(output.slice(0, REGEX_INPUT_MAX)), check_error: null };
    case 'jsonata':
      try {
        return { run_status, passed: await edgeTaken(expected.value, { input: run.input, output: run.output, run: runView(run) }), check_error: null };
      } catch (error) {
        return { run_status, passed: false, check_error: (error as Error).message };
      }
  }
}
