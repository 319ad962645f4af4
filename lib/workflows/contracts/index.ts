import type { EndpointContract } from '#platform/http/contract.js';
import { ChatsCreate } from './chats-create.js';
import { ChatsGet } from './chats-get.js';
import { WorkflowEntryNodes } from './workflow-entry-nodes.js';
import { WorkflowVersionsCreate } from './workflow-versions-create.js';
import { WorkflowVersionsLatest } from './workflow-versions-latest.js';
import { WorkflowsCreate } from './workflows-create.js';
import { WorkflowsGet } from './workflows-get.js';
import { WorkflowsList } from './workflows-list.js';

export const WORKFLOWS_ENDPOINTS: readonly EndpointContract[] = [
  WorkflowsCreate,
  WorkflowsList,
  WorkflowsGet,
  WorkflowVersionsCreate,
  WorkflowVersionsLatest,
  WorkflowEntryNodes,
  ChatsCreate,
  ChatsGet,
];
