import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { dlqName, type QueueDefinition } from '#platform/queues.js';
import { TABLE_DEFINITION } from '#platform/table/definition.js';

/** Creates the table from TABLE_DEFINITION if it is missing, with its GSIs and TTL. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const exists = await client
    .send(new DescribeTableCommand({ TableName: tableName }))
    .then(() => true)
    .catch((error: Error) => {
      if (error.name === 'ResourceNotFoundException') return false;
      throw error;
    });
  if (!exists) {
    const attributes = new Set<string>([TABLE_DEFINITION.partitionKey, TABLE_DEFINITION.sortKey]);
    for (const index of TABLE_DEFINITION.globalSecondaryIndexes) {
      attributes.add(index.partitionKey);
      attributes.add(index.sortKey);
    }
    await client
      .send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
          KeySchema: [
            { AttributeName: TABLE_DEFINITION.partitionKey, KeyType: 'HASH' },
            { AttributeName: TABLE_DEFINITION.sortKey, KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: TABLE_DEFINITION.globalSecondaryIndexes.map((index) => ({
            IndexName: index.indexName,
            KeySchema: [
              { AttributeName: index.partitionKey, KeyType: 'HASH' },
              { AttributeName: index.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          })),
        }),
      )
      .catch((error: Error) => {
        // Another process (a parallel test file) created it first.
        if (error.name !== 'ResourceInUseException') throw error;
      });
  }
  await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: tableName });
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  if (ttl.TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
    await client
      .send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.ttlAttribute, Enabled: true },
        }),
      )
      .catch((error: Error) => {
        if (!/already enabled|ValidationException/i.test(`${error.name} ${error.message}`)) throw error;
      });
  }
}

export interface ProvisionedQueue {
  definition: QueueDefinition;
  url: string;
  dlqUrl: string;
}

/** Creates each queue and its DLQ with the redrive policy of its definition. */
export async function ensureQueues(client: SQSClient, prefix: string, queues: readonly QueueDefinition[]): Promise<ProvisionedQueue[]> {
  const provisioned: ProvisionedQueue[] = [];
  for (const definition of queues) {
    const dlq = await client.send(new CreateQueueCommand({ QueueName: `${prefix}${dlqName(definition)}`, Attributes: { MessageRetentionPeriod: '1209600' } }));
    const dlqUrl = dlq.QueueUrl!;
    const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }));
    const main = await client.send(
      new CreateQueueCommand({
        QueueName: `${prefix}${definition.name}`,
        Attributes: {
          VisibilityTimeout: String(definition.visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes!.QueueArn, maxReceiveCount: definition.maxReceiveCount }),
        },
      }),
    );
    provisioned.push({ definition, url: main.QueueUrl!, dlqUrl });
  }
  return provisioned;
}
