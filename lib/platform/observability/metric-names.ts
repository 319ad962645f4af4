/**
 * The service's own CloudWatch metrics (Powertools Metrics, written as
 * embedded metric format log lines): the names the handlers emit and the
 * dashboard of the CDK stack reads, stated once.
 */
export const METRICS_NAMESPACE = 'WorkflowService';

export const METRIC = {
  /** A workflow request was created (API, hook or child request). */
  workflowRequestsStarted: 'WorkflowRequestsStarted',
  /** A workflow request ended; dimension `status`. */
  workflowRequestsEnded: 'WorkflowRequestsEnded',
  /** A v2 run was created. */
  runsStarted: 'RunsStarted',
  /** A run ended; dimension `status`. */
  runsEnded: 'RunsEnded',
  /** A node execution settled; dimension `status`. */
  nodeExecutions: 'NodeExecutions',
} as const;
