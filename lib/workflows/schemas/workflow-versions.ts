import * as z from 'zod';
import { documentedAs, withExample } from '#platform/http/common-schemas.js';
import { documentedDefinition, WorkflowDefinitionInput } from './workflow-definition.js';

// Apart from lib/workflows/schemas/workflows.ts so that the workflow handlers that do
// not take a definition do not bundle the definition schemas.

const versionBodyOf = <D extends z.ZodType>(definition: D) => z.strictObject({ definition });

/** Parsed leniently (the use case checks each node's type and config); documented as the union of node types. */
export const CreateVersionBody = documentedAs(versionBodyOf(WorkflowDefinitionInput), () =>
  withExample(versionBodyOf(documentedDefinition()).meta({ id: 'CreateWorkflowVersionRequest' }), {
    definition: {
      nodes: [
        { name: 'classify', type: 'agent', config: { model: 'local/echo', system_prompt: 'Answer "urgent" or "normal".' } },
        { name: 'is urgent', type: 'condition' },
        { name: 'approve', type: 'approval', config: { prompt: 'Page the on-call engineer?' } },
        {
          name: 'page',
          type: 'http',
          config: { method: 'POST', url: 'https://hooks.example.com/page', body: { text: '{{ $.query }}' } },
          retry: { max_attempts: 3 },
        },
        { name: 'summary', type: 'transform', config: { expression: '{"handled": true}' } },
      ],
      edges: [
        { from: 'classify', to: 'is urgent' },
        { from: 'is urgent', to: 'approve', when: '$contains($string($), "urgent")' },
        { from: 'is urgent', to: 'summary', when: '$not($contains($string($), "urgent"))' },
        { from: 'approve', to: 'page' },
      ],
    },
  }),
);
