import type { EndpointContract } from '#platform/http/contract.js';
import { WorkflowRequestsGet } from './workflow-requests-get.js';
import { WorkflowRequestsList } from './workflow-requests-list.js';
import { WorkflowRequestsListen } from './workflow-requests-listen.js';
import { WorkflowRequestsRedrive } from './workflow-requests-redrive.js';
import { WorkflowRequestsRun } from './workflow-requests-run.js';
import { WorkflowRequestsStop } from './workflow-requests-stop.js';
import { WorkflowRequestsTree } from './workflow-requests-tree.js';

export const EXECUTION_ENDPOINTS: readonly EndpointContract[] = [
  WorkflowRequestsRun,
  WorkflowRequestsList,
  WorkflowRequestsGet,
  WorkflowRequestsTree,
  WorkflowRequestsStop,
  WorkflowRequestsRedrive,
  WorkflowRequestsListen,
];
