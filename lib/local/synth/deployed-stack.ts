import { createHash, randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { TABLE_DEFINITION } from '#platform/table/definition.js';
import { SCHEDULER_VARIABLES } from '#schedules/eventbridge.js';
import { freePort, startEmulators } from '../emulators.js';
import { type RunningGateway, startGateway } from '../gateway.js';
import { ensureTable } from '../provision.js';
import { stopList } from '../stops.js';
import { readAssembly } from './assembly.js';
import { BundleRuntime } from './bundle-runtime.js';
import type { Denial, Principal } from './caller-access.js';
import { ensureDeployedQueues } from './deployed-queues.js';
import { deployedRoutesOf, routeInvoker } from './deployed-routes.js';
import { startDeployedWorkers } from './deployed-workers.js';
import { type RunningEndpoint, startIamProxy } from './iam-proxy.js';
import type { DeployedFunction, DeployedShape } from './model.js';
import { startSecretsEmulator } from './secrets-emulator.js';

export const LOCAL_ACCOUNT_ID = '000000000000';
/** The credentials of what is not a function (the operator CLI, the demo account, this process): not checked. */
export const TRUSTED_ACCESS_KEY = 'local';

export interface DeployedStackOptions {
  /** The cloud assembly (cdk.out). */
  assemblyDir: string;
  stackName?: string;
  port?: number;
  tableName?: string;
  dynamodbEndpoint?: string;
  sqsEndpoint?: string;
  dataDir?: string;
  region?: string;
  /** Values of the template's parameters (OpenAiApiKey). */
  parameters?: Record<string, string>;
  /** The value of each secret the template generates, by logical id (the service key, kept across restarts); random otherwise. */
  generatedSecrets?: Record<string, string>;
  onRequest?: Parameters<typeof startGateway>[0]['onRequest'];
  /** Every line a function writes, prefixed with its name. */
  onLog?: (line: string) => void;
  onDenied?: (denial: Denial) => void;
  onWorkerError?: (error: unknown) => void;
}

export interface DeployedStack {
  url: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  tableName: string;
  shape: DeployedShape;
  gateway: RunningGateway;
  stop(): Promise<void>;
}

/** One access key per function, as Lambda gives each its role's credentials: the proxies tell callers apart by it. */
const accessKeyOf = (fn: DeployedFunction): string => `LOCAL${createHash('sha256').update(fn.id).digest('hex').slice(0, 16).toUpperCase()}`;

/**
 * Runs a synthesized app as deployed (decisions.md, "Deployment and the
 * synthesized stack"): the emulators, the table and the template's queues;
 * an IAM-checking proxy in front of each emulator and a local Secrets
 * Manager; every function's bundle in worker threads with its template
 * environment and its own credentials; the template's routes and stream
 * paths on the gateway; its event source mappings as pollers.
 */
export async function startDeployedStack(options: DeployedStackOptions): Promise<DeployedStack> {
  const stops = stopList();
  const stopAll = stops.stopAll;
  try {
    const region = options.region ?? 'us-east-1';
    const tableName = options.tableName ?? 'workflow-service';
    const port = options.port || (await freePort());
    const baseUrl = `http://127.0.0.1:${port}`;
    const emulators = await startEmulators(options);
    stops.push(emulators.stop);
    const { dynamodbEndpoint, sqsEndpoint } = emulators;
    const credentials = { accessKeyId: TRUSTED_ACCESS_KEY, secretAccessKey: TRUSTED_ACCESS_KEY };
    const ddb = new DynamoDBClient({ endpoint: dynamodbEndpoint, region, credentials });
    const sqs = new SQSClient({ endpoint: sqsEndpoint, region, credentials });
    stops.push(async () => {
      ddb.destroy();
      sqs.destroy();
    });
    await ensureTable(ddb, tableName);

    // The principals are known once the assembly is read, which needs the SQS proxy's address first.
    const principals = new Map<string, Principal>();
    const access = { accountId: LOCAL_ACCOUNT_ID, principals, trustedKeys: [TRUSTED_ACCESS_KEY], onDenied: options.onDenied };
    const scope = {
      region,
      partitionKey: TABLE_DEFINITION.partitionKey,
      indexPartitionKeys: Object.fromEntries(TABLE_DEFINITION.globalSecondaryIndexes.map((i) => [i.indexName, i.partitionKey])),
    };
    const upstreamQueueBase = await emulatorQueueBase(sqs);
    const sqsProxy = await startIamProxy({ ...access, ...scope, service: 'sqs', upstream: sqsEndpoint, upstreamQueueBase });
    stops.push(sqsProxy.stop);
    const shape = readAssembly(
      options.assemblyDir,
      {
        region,
        accountId: LOCAL_ACCOUNT_ID,
        tableName,
        baseUrl,
        queueUrl: (name) => `${sqsProxy.endpoint}/${LOCAL_ACCOUNT_ID}/${name}`,
        parameters: options.parameters,
      },
      { stackName: options.stackName },
    );
    if (shape.unresolved.length > 0) console.warn(`Unresolved references in the template:\n  ${shape.unresolved.join('\n  ')}`);
    await ensureDeployedQueues(sqs, shape.queues);
    for (const fn of shape.functions) {
      principals.set(accessKeyOf(fn), { functionName: fn.functionName, roleName: fn.role.name, statements: fn.role.statements });
    }
    const dynamodbProxy = await startIamProxy({ ...access, ...scope, service: 'dynamodb', upstream: dynamodbEndpoint });
    stops.push(dynamodbProxy.stop);
    const secrets = await startSecretsEmulator({
      ...access,
      region,
      secrets: shape.secrets.map((secret) => ({
        arn: secret.arn,
        name: secret.name,
        value: secret.secretString ?? options.generatedSecrets?.[secret.logicalId] ?? randomBytes(48).toString('base64url'),
      })),
    });
    stops.push(secrets.stop);

    const runtimes = new Map<string, BundleRuntime>();
    for (const fn of shape.functions) {
      runtimes.set(
        fn.id,
        new BundleRuntime(functionEnvironment(fn, { region, baseUrl, dynamodb: dynamodbProxy, sqs: sqsProxy, secrets }), { onLog: options.onLog }),
      );
    }
    stops.push(async () => {
      await Promise.all([...runtimes.values()].map((runtime) => runtime.stop()));
    });

    const workers = startDeployedWorkers(shape, runtimes, { region, sqsEndpoint: sqsProxy.endpoint, accessKeyOf, onError: options.onWorkerError });
    stops.push(workers);
    const gateway = await startGateway({ routes: deployedRoutesOf(shape), invoke: routeInvoker(runtimes), port, onRequest: options.onRequest });
    stops.push(gateway.close);
    return { url: gateway.url, dynamodbEndpoint, sqsEndpoint, tableName, shape, gateway, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }

  function functionEnvironment(
    fn: DeployedFunction,
    local: { region: string; baseUrl: string; dynamodb: RunningEndpoint; sqs: RunningEndpoint; secrets: RunningEndpoint },
  ) {
    const environment: Record<string, string> = {
      ...fn.environment,
      // What the Lambda runtime adds: the region, the role's credentials, and (here) where AWS is.
      AWS_REGION: local.region,
      AWS_DEFAULT_REGION: local.region,
      AWS_ACCESS_KEY_ID: accessKeyOf(fn),
      AWS_SECRET_ACCESS_KEY: TRUSTED_ACCESS_KEY,
      AWS_ENDPOINT_URL_DYNAMODB: local.dynamodb.endpoint,
      AWS_ENDPOINT_URL_SQS: local.sqs.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: local.secrets.endpoint,
      // Lambda runs Node 22; on this machine's Node 20 the SDK would warn on every cold start.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // No EventBridge Scheduler here: the functions that keep schedules keep the table only, as under `npm start`.
      ...(fn.environment[SCHEDULER_VARIABLES.group] === undefined ? {} : { [SCHEDULER_VARIABLES.group]: '' }),
    };
    // The distribution's https:// address is the gateway's http:// one here.
    if (fn.environment.BASE_URL === `https://${new URL(local.baseUrl).host}`) environment.BASE_URL = local.baseUrl;
    return { functionName: fn.functionName, assetDir: fn.assetDir, handler: fn.handler, timeoutSeconds: fn.timeoutSeconds, memoryMb: fn.memoryMb, environment };
  }
}

/** `http://sqs.us-east-1.127.0.0.1:PORT`: how the emulator writes its queue URLs, learnt from a queue of its own. */
async function emulatorQueueBase(sqs: SQSClient): Promise<string> {
  const { CreateQueueCommand } = await import('@aws-sdk/client-sqs');
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'local-synth-probe' }));
  return QueueUrl!.slice(0, QueueUrl!.indexOf(`/${LOCAL_ACCOUNT_ID}/`));
}
