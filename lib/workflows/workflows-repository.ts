import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { queryPage } from '#platform/table/queries.js';
import { cancellationReasons, defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import { isUuid } from '#platform/uuid.js';
import { foldName, type Workflow, type WorkflowVersion } from './model.js';
import type { WorkflowDefinition } from './schemas/workflow-definition.js';

/** A version create that keeps losing the race for the next number gives up after this many tries (409). */
const VERSION_ATTEMPTS = 12;
/** A search reads this many index items per Query, and at most this many Queries per page. */
const SEARCH_PAGE_ITEMS = 200;
const SEARCH_MAX_QUERIES = 25;

/** `name_lower`, the folded copy searches match, is the item's own. */
const toWorkflow = (item: Record<string, unknown>): Workflow =>
  entityOf<Workflow>(item, ['name_lower'], { description: null, latest_version_id: null, version_count: 0 });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Why a version transaction was cancelled: the workflow item's condition or a concurrent transaction (retry), or the version item. */
function cancellation(error: unknown): 'race' | 'version_exists' | undefined {
  const reasons = cancellationReasons(error);
  if (!reasons) return undefined;
  const [workflow, version] = reasons;
  if (version?.Code === 'ConditionalCheckFailed') return 'version_exists';
  if (workflow?.Code === 'ConditionalCheckFailed' || workflow?.Code === 'TransactionConflict' || version?.Code === 'TransactionConflict') return 'race';
  return undefined;
}

export function workflowsRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  async function get(accountId: string, workflowId: string): Promise<Workflow | undefined> {
    if (!isUuid(workflowId)) return undefined;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.workflow(accountId, workflowId.toLowerCase()), ConsistentRead: true }));
    return Item ? toWorkflow(Item) : undefined;
  }

  return {
    async create(input: { id: string; accountId: string; name: string; description: string | null; now: string }): Promise<Workflow> {
      const workflow: Workflow = {
        id: input.id,
        account_id: input.accountId,
        name: input.name,
        description: input.description,
        latest_version_id: null,
        version_count: 0,
        created_at: input.now,
        updated_at: input.now,
      };
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...keys.workflow(input.accountId, input.id),
              ...keys.workflowsIndex(input.accountId, input.now, input.id),
              entity: 'workflow',
              ...workflow,
              name_lower: foldName(input.name),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError('workflow_exists', `A workflow with id ${input.id} already exists.`);
        throw error;
      }
      return workflow;
    },

    /** Undefined for a malformed, unknown or other account's id alike. */
    get,

    /**
     * An account's workflows, newest first, optionally only those whose name
     * contains `search` (case-insensitive; filtered server-side, so the loop
     * reads on until the page is full plus one to prove has_more). A sparse
     * search stops after SEARCH_MAX_QUERIES reads and answers a short page
     * whose position is the last item read, so a page never takes long.
     */
    async list(accountId: string, options: { limit: number; after?: string; search?: string }) {
      const gsi1pk = keys.workflowsIndexPartition(accountId);
      const search = options.search ? foldName(options.search) : undefined;
      const startWorkflowId = options.after?.slice(options.after.lastIndexOf('#') + 1);
      const page = await queryPage(
        db,
        {
          TableName: tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ...(search ? { FilterExpression: 'contains(name_lower, :search)' } : {}),
          ExpressionAttributeValues: { ':pk': gsi1pk, ...(search ? { ':search': search } : {}) },
          ScanIndexForward: false,
        },
        {
          limit: options.limit,
          startKey: options.after && startWorkflowId ? { gsi1pk, gsi1sk: options.after, ...keys.workflow(accountId, startWorkflowId) } : undefined,
          ...(search ? { readLimit: SEARCH_PAGE_ITEMS, maxQueries: SEARCH_MAX_QUERIES } : {}),
        },
      );
      const workflows = page.items.map(toWorkflow);
      if (page.more) {
        const last = workflows.at(-1)!;
        return { workflows, nextAfter: keys.workflowsIndex(accountId, last.created_at, last.id).gsi1sk };
      }
      return { workflows, nextAfter: page.lastKey ? (page.lastKey.gsi1sk as string) : undefined };
    },

    /**
     * Stores a version under the next number. One transaction raises the
     * workflow's counter, on condition that it still holds the number read,
     * sets latest_version_id, and puts the version item (which must not
     * exist). A concurrent create that took the number first cancels it; the
     * counter is read again and the next number tried, so concurrent creates
     * get distinct numbers.
     */
    async createVersion(
      workflow: Workflow,
      input: { id: string; definition: WorkflowDefinition; entry_node_ids: string[]; created_at: string },
    ): Promise<WorkflowVersion> {
      let expected = workflow.version_count;
      for (let attempt = 1; ; attempt++) {
        const version: WorkflowVersion = {
          id: input.id,
          workflow_id: workflow.id,
          account_id: workflow.account_id,
          version: expected + 1,
          definition: input.definition,
          entry_node_ids: input.entry_node_ids,
          created_at: input.created_at,
        };
        try {
          await db.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Update: {
                    TableName: tableName,
                    Key: keys.workflow(workflow.account_id, workflow.id),
                    UpdateExpression: 'SET version_count = :next, latest_version_id = :version_id, updated_at = :now',
                    ConditionExpression: 'attribute_exists(pk) AND version_count = :expected',
                    ExpressionAttributeValues: { ':next': version.version, ':expected': expected, ':version_id': version.id, ':now': input.created_at },
                  },
                },
                {
                  Put: {
                    TableName: tableName,
                    Item: { ...keys.workflowVersion(version.id), entity: 'workflow_version', ...version },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
              ],
            }),
          );
          return version;
        } catch (error) {
          const reason = cancellation(error);
          if (reason === 'version_exists') throw new ConflictError('version_exists', `A workflow version with id ${version.id} already exists.`);
          if (reason !== 'race') throw error;
          const current = await get(workflow.account_id, workflow.id);
          if (!current) throw new NotFoundError('No such workflow.');
          if (attempt >= VERSION_ATTEMPTS) {
            throw new ConflictError('version_conflict', 'Too many versions of this workflow are being created at once; retry.');
          }
          expected = current.version_count;
          await sleep(Math.random() * Math.min(200, 5 * 2 ** attempt));
        }
      }
    },

    /** Undefined for a malformed, unknown or other account's version id alike. */
    async getVersion(accountId: string, versionId: string): Promise<WorkflowVersion | undefined> {
      if (!isUuid(versionId)) return undefined;
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.workflowVersion(versionId.toLowerCase()), ConsistentRead: true }));
      return Item && Item.account_id === accountId ? entityOf<WorkflowVersion>(Item) : undefined;
    },
  };
}

export type WorkflowsRepo = ReturnType<typeof workflowsRepo>;
