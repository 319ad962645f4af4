import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { bearer } from './stack.js';

/** JSON over HTTP with a bearer token; the body parsed, headers kept. */
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

export type TestNode = { id: string; name: string; type: string; config: Record<string, unknown>; retry?: Record<string, unknown> };
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
