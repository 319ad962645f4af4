export const WorkflowIdParams = { id: { description: 'The workflow id. A malformed, unknown or other account’s id answers the same 404.' } };
