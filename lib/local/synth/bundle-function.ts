import { randomBytes } from 'node:crypto';

/** What a function runs with: its bundle, its limits and its whole environment (credentials and endpoints included). */
export interface FunctionEnvironment {
  functionName: string;
  /** Absolute path of the asset folder (LAMBDA_TASK_ROOT). */
  assetDir: string;
  /** `index.handler`: file stem and export. */
  handler: string;
  timeoutSeconds: number;
  memoryMb: number;
  environment: Record<string, string>;
}

/** An invocation that failed, as the Lambda runtime reports it. */
export class FunctionError extends Error {
  constructor(
    readonly errorType: string,
    readonly errorMessage: string,
    readonly trace: string[] = [],
  ) {
    super(`${errorType}: ${errorMessage}`);
    this.name = 'FunctionError';
  }
}

/** The function ran past its time; its environment was ended, as Lambda ends it. */
export class FunctionTimeout extends FunctionError {
  constructor(message: string) {
    super('Sandbox.Timedout', message);
    this.name = 'FunctionTimeout';
  }
}

/** The function's variables and what the runtime sets beside them. The parent's environment is no part of it. */
export function lambdaVariables(fn: FunctionEnvironment, logStreamName: string): Record<string, string> {
  const region = fn.environment.AWS_REGION ?? fn.environment.AWS_DEFAULT_REGION;
  return {
    LANG: 'en_US.UTF-8',
    ...fn.environment,
    ...(region ? { AWS_REGION: region, AWS_DEFAULT_REGION: region } : {}),
    AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: logStreamName,
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    LAMBDA_TASK_ROOT: fn.assetDir,
    _HANDLER: fn.handler,
    TZ: ':UTC',
  };
}

/** What the runtime sets for one execution environment: its variables, and the part of every invocation's context that stays. */
export function executionSetting(fn: FunctionEnvironment, accountId: string) {
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  const logStreamName = `${day}/[$LATEST]${randomBytes(16).toString('hex')}`;
  const env = lambdaVariables(fn, logStreamName);
  const context = {
    functionName: fn.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${env.AWS_REGION ?? 'us-east-1'}:${accountId}:function:${fn.functionName}`,
    memoryLimitInMB: String(fn.memoryMb),
    logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName,
  };
  return { env, context };
}
