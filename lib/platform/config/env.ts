/**
 * Runtime settings read from the environment once per cold start. The CDK
 * stack and the local stack set the same names.
 */
export interface ServiceEnv {
  tableName: string;
  /** Set locally (DynamoDB Local) or for LocalStack; unset in AWS. */
  dynamodbEndpoint?: string;
  sqsEndpoint?: string;
  region: string;
  /** Public root of the service, used in absolute links (token `endpoint`). */
  baseUrl: string;
  /** Base of problem `type` URIs. */
  problemBase: string;
  realm: string;
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): ServiceEnv {
  const baseUrl = (env.BASE_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
  return {
    tableName: env.TABLE_NAME ?? 'workflow-service',
    // The AWS SDK's endpoint variables too: LocalStack sets AWS_ENDPOINT_URL inside its Lambda containers.
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT || env.AWS_ENDPOINT_URL_DYNAMODB || env.AWS_ENDPOINT_URL || undefined,
    sqsEndpoint: env.SQS_ENDPOINT || env.AWS_ENDPOINT_URL_SQS || env.AWS_ENDPOINT_URL || undefined,
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    baseUrl,
    problemBase: (env.PROBLEM_BASE ?? `${baseUrl}/problems`).replace(/\/$/, ''),
    realm: env.AUTH_REALM ?? 'workflow-service',
  };
}

/**
 * Read on access rather than at import, so the local stack and tests can
 * set the environment before the first handler runs, whatever was imported.
 */
export const serviceEnv: ServiceEnv = Object.defineProperties(
  {} as ServiceEnv,
  Object.fromEntries((Object.keys(readEnv({})) as Array<keyof ServiceEnv>).map((name) => [name, { enumerable: true, get: () => readEnv()[name] }])),
);
