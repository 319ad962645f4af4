import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeployedQueue } from './model.js';

/**
 * Creates the template's queues in the SQS emulator as CloudFormation would:
 * dead-letter queues first, each queue with its visibility timeout, retention
 * and redrive policy. Answers each queue's URL in the emulator, by name.
 */
export async function ensureDeployedQueues(client: SQSClient, queues: readonly DeployedQueue[]): Promise<Map<string, string>> {
  const urls = new Map<string, string>();
  const arns = new Map<string, string>();
  const ordered = [...queues].sort((a, b) => Number(Boolean(a.redrive)) - Number(Boolean(b.redrive)));
  for (const queue of ordered) {
    const attributes: Record<string, string> = { VisibilityTimeout: String(queue.visibilityTimeoutSeconds) };
    if (queue.messageRetentionSeconds !== undefined) attributes.MessageRetentionPeriod = String(queue.messageRetentionSeconds);
    if (queue.redrive) {
      const target = arns.get(queue.redrive.deadLetterQueueName);
      if (!target) throw new Error(`Queue ${queue.name}: its dead-letter queue ${queue.redrive.deadLetterQueueName} is not in the template.`);
      attributes.RedrivePolicy = JSON.stringify({ deadLetterTargetArn: target, maxReceiveCount: queue.redrive.maxReceiveCount });
    }
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: queue.name, Attributes: attributes }));
    const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    urls.set(queue.name, QueueUrl!);
    arns.set(queue.name, Attributes!.QueueArn!);
  }
  return urls;
}
