import { defineConfig } from 'vitest/config';
import { CoverageByFolderReporter } from './test/coverage-by-folder.js';
import { PlainSummaryReporter } from './test/plain-summary.js';

// On Node 20, every process that makes an AWS SDK client (this one starts the emulators, each test file is
// another) would print the SDK's notice that it will soon need Node 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * Every test tier with vitest:
 *
 *   npm test                               type-check, then all tiers with coverage
 *   npm run test:unit                      one tier (unit | integration | browser | infra)
 *   npx vitest run test/unit/cursor.test.ts  given files
 *
 * Each test file runs in its own child process (pool `forks`, isolated), as
 * with node:test: integration files start their own gateway (which sets
 * process.env for the handlers) and CDK tests synthesize their own app.
 * Integration tests share one DynamoDB Local and one SQS emulator for the
 * whole run, started by test/integration/global-setup.ts.
 */
export default defineConfig({
  test: {
    pool: 'forks',
    // Integration files mostly wait on the emulators and timers: two at a time on a 2-core machine.
    maxWorkers: 2,
    env: {
      // Handlers log through Powertools; keep test output to what tests print.
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'CRITICAL',
    },
    reporters: ['default', new CoverageByFolderReporter(), new PlainSummaryReporter()],
    coverage: {
      provider: 'v8',
      include: ['lib/**/*.ts'],
      exclude: [
        // Generated at build time (the OpenAPI document as a string constant): not code to cover.
        'lib/app/openapi/generated.ts',
        // The local stand-in for Lambda, SQS event sources and API Gateway, not deployed code; its entry points
        // (`npm start`, the emulators of global-setup.ts) run in processes coverage does not see.
        'lib/local/**',
      ],
      // The per-folder table comes from test/coverage-by-folder.ts; json-summary is for tools.
      reporter: ['json-summary'],
      reportsDirectory: 'coverage',
      reportOnFailure: true,
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 15_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          setupFiles: ['test/integration/setup-env.ts'],
          // Real emulators, SQS redelivery and stream time limits: tests take seconds, bounded inside by their own waits.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          // The pages in Debian's Chromium (test/browser/support/browser.ts) against a local stack on this run's emulators.
          globalSetup: ['test/integration/global-setup.ts'],
          setupFiles: ['test/integration/setup-env.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          // The real app, synthesized once for the tier (every function bundled).
          globalSetup: ['test/infra/global-setup.ts'],
          // Synthesis bundles every function with esbuild and runs cdk-nag.
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
