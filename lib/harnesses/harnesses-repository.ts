import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '#platform/errors.js';
import { batchPut } from '#platform/table/batch.js';
import { newestFirstPage } from '#platform/table/index-page.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { queryAll } from '#platform/table/queries.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import type { HarnessFile } from './harness-files.js';
import { HARNESS_ID, type Harness } from './model.js';

/**
 * A harness is immutable and larger than one item may be (400 KB), so it is
 * one partition `HARNESS#<id>`: an item per file (`FILE#<path>`, its
 * content, at most 256 KiB) and a head item (`HARNESS`: account, name,
 * model, the parsed harness.json, the file list with sizes) carrying the gsi1
 * entry of the account's list. The files are written first and the head
 * last, so a harness is visible (get, list, runs) only whole; a create that
 * dies before the head leaves file items nobody reads.
 */

export function harnessesRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  /** The head item, if it is the account's; undefined for a malformed, unknown or other account's id alike. */
  async function get(accountId: string, harnessId: string): Promise<Harness | undefined> {
    if (!HARNESS_ID.test(harnessId)) return undefined;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.harness(harnessId), ConsistentRead: true }));
    return Item && Item.account_id === accountId ? entityOf<Harness>(Item) : undefined;
  }

  return {
    get,

    /** Writes every file, then the head (which must not exist). */
    async create(harness: Harness, files: readonly HarnessFile[]): Promise<Harness> {
      await batchPut(
        db,
        tableName,
        files.map((file) => ({
          ...keys.harnessFile(harness.id, file.path),
          entity: 'harness_file',
          harness_id: harness.id,
          path: file.path,
          content: file.content,
        })),
      );
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...keys.harness(harness.id), ...keys.harnessIndex(harness.account_id, harness.created_at, harness.id), entity: 'harness', ...harness },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError('harness_exists', `A harness with id ${harness.id} already exists.`);
        throw error;
      }
      return harness;
    },

    /** The head and the content of every file, in the head's order: one consistent Query of the partition (more pages past 1 MB). */
    async getWithFiles(accountId: string, harnessId: string): Promise<{ harness: Harness; files: HarnessFile[] } | undefined> {
      if (!HARNESS_ID.test(harnessId)) return undefined;
      const items = await queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.harness(harnessId).pk },
        ConsistentRead: true,
      });
      const head = items.find((item) => item.sk === keys.harness(harnessId).sk);
      if (!head || head.account_id !== accountId) return undefined;
      const harness = entityOf<Harness>(head);
      const content = new Map(items.filter((item) => item.entity === 'harness_file').map((item) => [item.path as string, item.content as string]));
      return { harness, files: harness.files.map(({ path }) => ({ path, content: content.get(path) ?? '' })) };
    },

    /** One file's content (the runs read the instructions this way, after `get`). */
    async file(harnessId: string, path: string): Promise<string | undefined> {
      if (!HARNESS_ID.test(harnessId)) return undefined;
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.harnessFile(harnessId, path), ConsistentRead: true }));
      return Item ? (Item.content as string) : undefined;
    },

    /** The account's harnesses, newest first. */
    async list(accountId: string, options: { limit: number; after?: { gsi1sk: string; pk: string; sk: string } }) {
      const page = await newestFirstPage(db, tableName, keys.harnessIndexPartition(accountId), undefined, options);
      return { harnesses: page.items.map((item) => entityOf<Harness>(item)), next: page.next };
    },
  };
}

export type HarnessesRepo = ReturnType<typeof harnessesRepo>;
