import type { WorkflowDefinition, WorkflowEdge, WorkflowNode } from '#workflows/index.js';

/** Parent and child lookups over a version's definition, built once per version. */
export interface Graph {
  nodes: Map<string, WorkflowNode>;
  parents: Map<string, string[]>;
  children: Map<string, WorkflowEdge[]>;
}

const cache = new Map<string, Graph>();

export function graphOf(versionId: string, definition: WorkflowDefinition): Graph {
  let graph = cache.get(versionId);
  if (!graph) {
    graph = {
      nodes: new Map(definition.nodes.map((n) => [n.id, n])),
      parents: new Map(definition.nodes.map((n) => [n.id, []])),
      children: new Map(definition.nodes.map((n) => [n.id, []])),
    };
    for (const edge of definition.edges) {
      graph.parents.get(edge.to)?.push(edge.from);
      graph.children.get(edge.from)?.push(edge);
    }
    // Versions are immutable, so the graph can live as long as the container.
    cache.set(versionId, graph);
  }
  return graph;
}

export type InitialState = 'pending' | 'blocked' | 'skipped';

/**
 * The state of every node when a request starts at `entryIds`: the chosen
 * entry nodes are pending; entry nodes not chosen are skipped, and so is
 * everything only they lead to; the rest wait for their parents (blocked),
 * with the statically skipped parents already counted as done.
 */
export function initialStates(graph: Graph, entryIds: readonly string[]): Map<string, { state: InitialState; doneParents: string[] }> {
  const chosen = new Set(entryIds);
  const states = new Map<string, { state: InitialState; doneParents: string[] }>();
  const order = topologicalOrder(graph);
  for (const id of order) {
    const parents = graph.parents.get(id) ?? [];
    if (parents.length === 0) {
      states.set(id, { state: chosen.has(id) ? 'pending' : 'skipped', doneParents: [] });
      continue;
    }
    const skippedParents = parents.filter((p) => states.get(p)?.state === 'skipped');
    states.set(id, { state: skippedParents.length === parents.length ? 'skipped' : 'blocked', doneParents: skippedParents });
  }
  return states;
}

export function topologicalOrder(graph: Graph): string[] {
  const remaining = new Map([...graph.parents].map(([id, parents]) => [id, parents.length]));
  const ready = [...remaining].filter(([, n]) => n === 0).map(([id]) => id);
  const order: string[] = [];
  while (ready.length > 0) {
    const id = ready.shift()!;
    order.push(id);
    for (const edge of graph.children.get(id) ?? []) {
      const left = (remaining.get(edge.to) ?? 0) - 1;
      remaining.set(edge.to, left);
      if (left === 0) ready.push(edge.to);
    }
  }
  return order;
}
