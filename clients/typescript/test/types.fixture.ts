// Compile fixture, never run: `tsc -p clients/typescript` (in `npm test`) type-checks it. Each
// `@ts-expect-error` must meet an error, so a type that stops catching a mistake fails the build.
import { createClient, ProblemError, type RunEvent, type Schemas, type WorkflowStreamEvent } from '@workflow-service/client';

const api = createClient({ baseUrl: 'http://127.0.0.1:3000', token: () => 'wsk_example', retries: 1, credentials: 'same-origin' });

export async function lists(): Promise<string[]> {
  // `data` is the success body: no `| undefined`, no `!`.
  const { data } = await api.GET('/v2/runs', { params: { query: { limit: 20 } } });
  const runs: Schemas['Run'][] = data.data;
  const cursor: string | null = data.page.next_cursor;
  // @ts-expect-error the body is typed (not `any`): it has no such field
  data.nope;
  // @ts-expect-error a query parameter the operation does not have
  await api.GET('/v2/runs', { params: { query: { limitt: 20 } } });
  // @ts-expect-error a path parameter is required
  await api.GET('/v2/runs/{id}');
  return [...runs.map((run) => run.id), cursor ?? ''];
}

export async function starts(harnessId: string, machineId: string): Promise<string> {
  // No Idempotency-Key given: the client sends one.
  const { data: run } = await api.POST('/v2/runs', { body: { harness_id: harnessId, machine_id: machineId, input: 'hello' } });
  // …or the caller's own.
  await api.POST('/v2/runs', { params: { header: { 'Idempotency-Key': 'my-key' } }, body: { harness_id: harnessId, input: 'again' } });
  // @ts-expect-error `input` is required
  await api.POST('/v2/runs', { body: { harness_id: harnessId } });
  // A 204 has no body.
  const { data: nothing } = await api.DELETE('/v1/hooks/{id}', { params: { path: { id: 'hook' } } });
  const none: undefined = nothing;
  return run.status + String(none);
}

export async function versions(workflowId: string): Promise<string[]> {
  const params = { path: { id: workflowId } };
  const { data } = await api.POST('/v1/workflows/{id}/versions', {
    params,
    body: { definition: { nodes: [{ name: 'double', type: 'transform', config: { expression: '$ * 2' } }] } },
  });
  await api.POST('/v1/workflows/{id}/versions', {
    params,
    // @ts-expect-error a misspelt node type
    body: { definition: { nodes: [{ name: 'double', type: 'transfrom', config: { expression: '$ * 2' } }] } },
  });
  await api.POST('/v1/workflows/{id}/versions', {
    params,
    // @ts-expect-error a transform node's config without its required `expression`
    body: { definition: { nodes: [{ name: 'double', type: 'transform', config: {} }] } },
  });
  // @ts-expect-error `definition` is required
  await api.POST('/v1/workflows/{id}/versions', { params, body: {} });
  return data.entry_node_ids;
}

export async function streams(runId: string, requestId: string, signal: AbortSignal): Promise<string[]> {
  const texts: string[] = [];
  for await (const event of api.streamRunEvents(runId, { signal })) {
    const e: RunEvent = event;
    // Narrowed by `type`, `data` is that type's.
    if (e.type === 'message') texts.push(e.data.text);
    if (e.type === 'run.status') texts.push(e.data.status);
    texts.push(e.id);
  }
  for await (const event of api.streamRequestEvents(requestId, { lastEventId: '3', signal })) {
    const e: WorkflowStreamEvent = event;
    texts.push(e.id, e.data.workflow_request?.status ?? '', e.data.node_execution?.node_id ?? '');
  }
  return texts;
}

export function problems(error: unknown): string | undefined {
  if (!(error instanceof ProblemError)) return undefined;
  const status: number = error.status;
  const retryAfter: number | undefined = error.retryAfterSeconds;
  return [status, error.code, error.title, error.detail, error.requestId, retryAfter].join(' ');
}
