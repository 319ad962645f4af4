import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { vi } from 'vitest';
import { isTerminalRequest } from '#execution/model.js';
import { bearer } from './stack.js';

/** JSON over HTTP with a bearer token; the body parsed, headers kept. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON the tests read field by field; typing each would restate the OpenAPI schemas
export type Api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any; headers: Headers }>;

export const apiFor =
  (baseUrl: () => string, token: () => string): Api =>
  async (method, path, body, headers = {}) => {
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...bearer(token()), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };

export type TestNode = { id: string; name: string; type: string; config: Record<string, unknown>; retry?: Record<string, unknown>; timeout_ms?: number };
export const node = (name: string, type: string, config: Record<string, unknown> = {}): TestNode => ({ id: randomUUID(), name, type, config });
export const transform = (name: string, expression: string): TestNode => node(name, 'transform', { expression });

/** A new workflow with one version of this definition. */
export async function createVersion(api: Api, nodes: TestNode[], edges: Array<{ from: string; to: string; when?: string }>) {
  const workflow = await api('POST', '/v1/workflows', { name: `wf-${randomUUID()}` });
  assert.equal(workflow.status, 201, JSON.stringify(workflow.body));
  const created = await api('POST', `/v1/workflows/${workflow.body.id}/versions`, { definition: { nodes, edges } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body as { id: string; entry_node_ids: string[]; workflow_id: string };
}

/** Starts a run of the version at its entry nodes; returns the request id. */
export async function runVersion(
  api: Api,
  v: { id: string; entry_node_ids: string[] },
  payload: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  const started = await api('POST', '/v1/workflow-requests/run', { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids, payload, ...extra });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  return started.body.workflow_request_id as string;
}

export interface Tree {
  workflow_request: { status: string; error: { code: string; message: string } | null };
  node_executions: Array<{ node_id: string; status: string; output_data: unknown; attempt_count: number; error: { code: string; message: string } | null }>;
}

/** The execution tree once the request is completed, failed or stopped. */
export function settledTree(api: Api, requestId: string, timeoutMs = 20_000): Promise<Tree> {
  return vi.waitFor(
    async () => {
      const tree = (await api('GET', `/v1/workflow-requests/${requestId}/tree`)).body as Tree;
      if (!isTerminalRequest(tree.workflow_request.status)) throw new Error(`request still ${tree.workflow_request.status}: ${JSON.stringify(tree)}`);
      return tree;
    },
    { timeout: timeoutMs, interval: 100 },
  );
}
