import * as z from 'zod';
import { WorkflowDefinitionInput } from './workflow-definition.js';

// Apart from lib/workflows/schemas/workflows.ts so that the workflow handlers that do
// not take a definition do not bundle the definition schemas.

export const CreateVersionBody = z.strictObject({ definition: WorkflowDefinitionInput }).meta({ id: 'CreateWorkflowVersionRequest' });
