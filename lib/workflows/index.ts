/**
 * What other features may use of workflows: the definition's model types,
 * and the reads the engine needs (a version by id, whether a chat exists).
 * Nothing here loads the definition validator or JSONata.
 */
import type { TableRef } from '#platform/table/table.js';
import { type ChatsRepo, chatsRepo } from './chats-repository.js';

export { chatRunJoin } from './chats-repository.js';
export type { Chat } from './model.js';

import { type WorkflowsRepo, workflowsRepo } from './workflows-repository.js';

export type { WorkflowVersion } from './model.js';
export type { HttpConfig, NodeType, WorkflowDefinition, WorkflowEdge, WorkflowNode } from './schemas/workflow-definition.js';

/** A workflow version of an account by id (undefined when it is not that account's). */
export const workflowVersions = (table?: TableRef): Pick<WorkflowsRepo, 'getVersion'> => workflowsRepo(table);

/** A chat of an account by id (undefined when it is not that account's). */
export const chatLookup = (table?: TableRef): Pick<ChatsRepo, 'get'> => chatsRepo(table);
