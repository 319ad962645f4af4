/**
 * How every function is bundled and sized, shared by the CDK stack and the
 * benchmark (bench/support/bundling.ts, bench/support/prices.ts), so what is
 * measured is what is deployed.
 */

/** esbuild settings beyond the banner and externals below: minified ESM for Node 22, `module` before `main`. */
export const BUNDLE = { minify: true, target: 'node22', mainFields: ['module', 'main'] } as const;

/** Memory of every worker and of every route that names no `memoryMb`. */
export const DEFAULT_MEMORY_MB = 256;

/** Lets bundled CommonJS dependencies `require` inside an ES module bundle. */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'module';const require = createRequire(import.meta.url);";

/**
 * Nothing is left to the Node.js 22 runtime's copy of the AWS SDK: every
 * function bundles the one SDK version of package-lock.json, minified, so
 * what runs in AWS is what the tests mock and the bench measures. (CDK's
 * default leaves `@aws-sdk/*` external; an empty list overrides it.) What
 * only some invocations need, the Bedrock client among them, is imported
 * with `import()`: bundled, but evaluated on first use.
 */
export const EXTERNAL_MODULES: string[] = [];
