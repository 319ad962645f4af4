import type { Reporter, TestModule } from 'vitest/node';

/**
 * Closes the run with one plain line, `Tests: N passed, N failed[, N skipped]`,
 * after vitest's own summary: a form any CI log reader recognises, whatever
 * it knows of vitest's colours and layout.
 */
export class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed' || state === 'failed' || state === 'skipped') counts[state]++;
      }
      // A file that failed to load has no tests to count; it still fails the run.
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) counts.failed++;
    }
    const skipped = counts.skipped ? `, ${counts.skipped} skipped` : '';
    process.stdout.write(`\nTests: ${counts.passed} passed, ${counts.failed} failed${skipped}\n`);
  }
}
