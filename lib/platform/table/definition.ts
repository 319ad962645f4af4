/**
 * The single table, described once. The CDK stack (infra/) and the local
 * stack (lib/local/) both build the table from this, so the two cannot drift.
 */
export const TABLE_DEFINITION = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'ttl',
  globalSecondaryIndexes: [
    // Overloaded index for "list X by owner, newest first" access patterns.
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  ],
} as const;

export type IndexName = (typeof TABLE_DEFINITION.globalSecondaryIndexes)[number]['indexName'];
