/**
 * How every function is bundled, shared by the CDK stack and the benchmark
 * (bench/bundle.ts), so what is measured is what is deployed.
 */

/** Lets bundled CommonJS dependencies `require` inside an ES module bundle. */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'module';const require = createRequire(import.meta.url);";

/**
 * Left out of the bundles and loaded from the Node.js 22 runtime, which ships
 * the AWS SDK v3. Only the Bedrock client, which the agent worker imports on
 * its first Bedrock call. Everything else is bundled: the functions reach
 * DynamoDB and SQS without the SDK (lib/aws/), and bundling the little they
 * take from it (`@aws-sdk/util-dynamodb`) saves resolving and lexing
 * CommonJS files at init. An SDK client imported by mistake would be bundled
 * in and show in the benchmark's bundle sizes.
 */
export const EXTERNAL_MODULES = ['@aws-sdk/client-bedrock-runtime'];
