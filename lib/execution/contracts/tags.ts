import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const WORKFLOW_REQUESTS_TAG = defineTag('Workflow requests', 'Running a workflow version, its history, execution tree and live event stream.');
