import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { startPoller } from '../poller.js';
import type { BundleRuntime } from './bundle-runtime.js';
import type { DeployedFunction, DeployedShape } from './model.js';

export interface DeployedWorkersOptions {
  region: string;
  /** The SQS proxy: the mapping polls with its function's credentials, so a role that may not consume its queue fails as in AWS. */
  sqsEndpoint: string;
  accessKeyOf(fn: DeployedFunction): string;
  onError?: (error: unknown) => void;
}

/** Every enabled event source mapping of the template, polling its queue into its function's bundle. Returns their stop. */
export function startDeployedWorkers(shape: DeployedShape, runtimes: ReadonlyMap<string, BundleRuntime>, options: DeployedWorkersOptions): () => Promise<void> {
  const pollers = shape.eventSources
    .filter((source) => source.enabled)
    .map((source) => {
      const fn = shape.functions.find((f) => f.id === source.functionId);
      const queue = shape.queues.find((q) => q.name === source.queueName);
      const runtime = runtimes.get(source.functionId);
      if (!fn || !queue || !runtime) throw new Error(`Event source of ${source.functionId}: its function or queue ${source.queueName} is not in the assembly.`);
      const client = new SQSClient({
        endpoint: options.sqsEndpoint,
        region: options.region,
        credentials: { accessKeyId: options.accessKeyOf(fn), secretAccessKey: 'local' },
      });
      const poller = startPoller({
        client,
        region: options.region,
        onError: options.onError,
        source: {
          name: fn.functionName,
          queueUrl: `${options.sqsEndpoint}/000000000000/${queue.name}`,
          batchSize: source.batchSize,
          maxBatchingWindowSeconds: source.maximumBatchingWindowSeconds,
          visibilityTimeoutSeconds: queue.visibilityTimeoutSeconds,
          timeoutSeconds: fn.timeoutSeconds,
          reportBatchItemFailures: source.reportBatchItemFailures,
          invoke: async (event) => (await runtime.invoke(event)) as SQSBatchResponse | undefined,
        },
      });
      return { poller, client };
    });
  return async () => {
    await Promise.all(pollers.map(({ poller }) => poller.stop()));
    for (const { client } of pollers) client.destroy();
  };
}
