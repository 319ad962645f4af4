import { ROUTES } from '#app/routes.js';
import { DEFAULT_MEMORY_MB } from '../../infra/bundling.js';

/**
 * AWS list prices the bench turns measured usage into, us-east-1.
 *
 * As of 2026-11-21, from the AWS pricing pages below (entered by hand, not
 * fetched: re-check them before quoting a figure). Free tiers are ignored;
 * Lambda's duration price is the first arm64 tier.
 */
export const PRICES = {
  asOf: '2026-11-21',
  region: 'us-east-1',
  /** DynamoDB on-demand, per write request unit (1 KB written; 2 for a transactional write). */
  dynamodbWriteRequestUnit: 0.625 / 1e6,
  /** DynamoDB on-demand, per read request unit (4 KB strongly consistent; 0.5 eventually consistent, 2 transactional). */
  dynamodbReadRequestUnit: 0.125 / 1e6,
  /** SQS standard queue, per request; each 64 KB chunk of a payload is billed as one request. */
  sqsRequest: 0.4 / 1e6,
  /** Lambda, per invocation. */
  lambdaRequest: 0.2 / 1e6,
  /** Lambda arm64, per GB-second of duration (billed per 1 ms). */
  lambdaArmGbSecond: 0.0000133334,
  /** Step Functions Standard, per state transition: the comparison the target comes from. */
  stepFunctionsStandardTransition: 25 / 1e6,
  sources: [
    'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    'https://aws.amazon.com/sqs/pricing/',
    'https://aws.amazon.com/lambda/pricing/',
    'https://aws.amazon.com/step-functions/pricing/',
  ],
} as const;

/** The budget: USD per million node executions (a tenth of Step Functions Standard's 25 USD per million transitions). */
export const TARGET_USD_PER_MILLION_NODES = 2.5;

/** The budget of a node that goes through the queue (a claim, a queue hop, a worker invocation): issue 9's figure, the design floor being about 3.30. */
export const TARGET_QUEUED_USD_PER_MILLION_NODES = 4.5;

export interface FunctionMemory {
  workerMb: number;
  apiMb: number;
  streamMb: number;
  /** Where the figures were read, or why they are assumed. */
  source: string;
}

/**
 * Memory sizes as the CDK stack deploys them: every worker and every route
 * without `memoryMb` gets DEFAULT_MEMORY_MB (infra/bundling.ts).
 */
export function functionMemory(): FunctionMemory {
  const routeMemoryMb = (path: string) => ROUTES.find((r) => r.path === path)?.memoryMb;
  return {
    workerMb: DEFAULT_MEMORY_MB,
    apiMb: routeMemoryMb('/v1/workflow-requests/run') ?? DEFAULT_MEMORY_MB,
    streamMb: routeMemoryMb('/v1/workflow-requests/{id}/listen') ?? DEFAULT_MEMORY_MB,
    source: `infra/bundling.ts DEFAULT_MEMORY_MB = ${DEFAULT_MEMORY_MB} (queue workers always use it); routes use their memoryMb from lib/app/routes.ts, else the default`,
  };
}
