import type { RunStatus } from '#runs/index.js';
import type { Attempt, CaseResult, EvaluationCase, EvaluationResults } from './model.js';

// Not rounded: a client computes with the rate (sums, comparisons), and 2/3 rounded is no longer 2/3.
const rate = (passed: number, attempts: number): number => (attempts === 0 ? 0 : passed / attempts);

/**
 * The results of a completed evaluation (decisions.md): per case, its
 * attempts, their runs' statuses and, with a check, how many passed; and
 * the pass rate over every case with a check. An attempt whose run has not
 * ended counts with its run's status now (`statusNow`, read at completion)
 * and as not passed.
 */
export function resultsOf(cases: readonly EvaluationCase[], attempts: readonly Attempt[], statusNow: ReadonlyMap<string, RunStatus>): EvaluationResults {
  let checkedPassed = 0;
  let checkedAttempts = 0;
  let anyCheck = false;
  const per_case = cases.map((c): CaseResult => {
    const own = attempts.filter((a) => a.position === c.position);
    const run_statuses: CaseResult['run_statuses'] = {};
    for (const attempt of own) {
      const status = attempt.run_status ?? statusNow.get(attempt.run_id);
      if (status) run_statuses[status] = (run_statuses[status] ?? 0) + 1;
    }
    if (!c.expected) return { case_id: c.id, attempts: own.length, passed: null, pass_rate: null, run_statuses };
    const passed = own.filter((a) => a.passed === true).length;
    anyCheck = true;
    checkedPassed += passed;
    checkedAttempts += own.length;
    return { case_id: c.id, attempts: own.length, passed, pass_rate: rate(passed, own.length), run_statuses };
  });
  return { per_case, pass_rate: anyCheck ? rate(checkedPassed, checkedAttempts) : null };
}
