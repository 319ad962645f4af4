import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const SCHEDULES_TAG = defineTag(
  'Schedules',
  'Recurring work: a cron expression in a time zone, or a rate, that starts a workflow request or creates a run at each firing, once per scheduled time. `trigger` fires one now.',
);
