import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import type { DefinitionEdge, DefinitionNode } from '#workflows/schemas/workflow-definition.js';
import type { Api } from './local-stack.js';
import { TARGET_QUEUED_USD_PER_MILLION_NODES, TARGET_USD_PER_MILLION_NODES } from './prices.js';

/** The workflows the engine benchmarks run: their definitions as `POST /v1/workflows/{id}/versions` takes them. */

export type ShapeName = 'chain' | 'fanout' | 'fanout-10' | 'chain-retry';
type Node = z.input<typeof DefinitionNode> & { id: string };

export interface Shape {
  shape: ShapeName;
  title: string;
  description: string;
  /** USD per million node executions this shape must stay within. */
  target: number;
  nodes: Node[];
  edges: Array<z.input<typeof DefinitionEdge>>;
  /** Set once the version is created. */
  versionId?: string;
  entryNodeIds?: string[];
}

const transform = (name: string, expression: string): Node => ({ id: randomUUID(), name, type: 'transform', config: { expression } });
const line = (nodes: Node[]) => nodes.slice(1).map((n, i) => ({ from: nodes[i]!.id, to: n.id }));
const fan = (entry: Node, branches: Node[], join: Node) => [
  ...branches.map((b) => ({ from: entry.id, to: b.id })),
  ...branches.map((b) => ({ from: b.id, to: join.id })),
];

export function shapes(): Shape[] {
  const chain = Array.from({ length: 10 }, (_, i) => transform(`step${i}`, `{ "step": ${i} }`));
  const entry = transform('entry', '{ "step": 0 }');
  const branches = Array.from({ length: 8 }, (_, i) => transform(`branch${i + 1}`, `{ "branch": ${i + 1} }`));
  const join = transform('join', '{ "joined": 8 }');
  const entry10 = transform('entry', '{ "step": 0 }');
  const branches10 = Array.from({ length: 10 }, (_, i) => transform(`branch${i + 1}`, `{ "branch": ${i + 1} }`));
  const join10 = transform('join', '{ "joined": 10 }');
  const retried = Array.from({ length: 10 }, (_, i) => ({ ...transform(`step${i}`, `{ "step": ${i} }`), retry: { max_attempts: 2 } }));
  return [
    {
      shape: 'chain',
      title: '10-node chain',
      description: '10 `transform` nodes in a line (9 edges)',
      target: TARGET_USD_PER_MILLION_NODES,
      nodes: chain,
      edges: line(chain),
    },
    {
      shape: 'fanout',
      title: '8-wide fan-out (10 nodes)',
      description: 'one entry `transform` → 8 parallel `transform`s → one join `transform`: exactly 10 nodes (16 edges)',
      target: TARGET_USD_PER_MILLION_NODES,
      nodes: [entry, ...branches, join],
      edges: fan(entry, branches, join),
    },
    {
      shape: 'fanout-10',
      title: '10-wide fan-out (12 nodes)',
      description: 'one entry `transform` → 10 parallel `transform`s → one join `transform`: 12 nodes (20 edges), the issue\'s "10-wide" read literally',
      target: TARGET_USD_PER_MILLION_NODES,
      nodes: [entry10, ...branches10, join10],
      edges: fan(entry10, branches10, join10),
    },
    {
      shape: 'chain-retry',
      title: '10-node chain with retry policies',
      description:
        'the same chain with `retry: {max_attempts: 2}` on every node (no node fails, so nothing is retried); lib/execution/executor.ts runs a transform inline only when it has no retry policy, so this shape is there to measure the queued path (a claim, a queue hop and a worker invocation per node) that the other node types take; the "through the queue" column of the latency table shows whether it did',
      target: TARGET_QUEUED_USD_PER_MILLION_NODES,
      nodes: retried,
      edges: line(retried),
    },
  ];
}

/** Chains, whose every hop is parent → child: the latency runs. */
export const isChain = (s: { shape: ShapeName }): boolean => !s.shape.startsWith('fanout');

export async function createVersion(api: Api, s: Shape): Promise<void> {
  const workflow = await api('POST', '/v1/workflows', { name: `bench-${s.shape}-${randomUUID().slice(0, 8)}` });
  if (workflow.status !== 201) throw new Error(`POST /v1/workflows answered ${workflow.status}: ${JSON.stringify(workflow.body)}`);
  const version = await api('POST', `/v1/workflows/${workflow.body.id}/versions`, { definition: { nodes: s.nodes, edges: s.edges } });
  if (version.status !== 201) throw new Error(`POST /v1/workflows/{id}/versions answered ${version.status}: ${JSON.stringify(version.body)}`);
  s.versionId = version.body.id as string;
  s.entryNodeIds = version.body.entry_node_ids as string[];
}
