import assert from 'node:assert/strict';
import { cruise, type IModule } from 'dependency-cruiser';
import { describe, test } from 'vitest';

/** lib/execution/nodes/http.ts → lib/execution; anything outside lib/ → undefined. */
const folderOf = (path: string): string | undefined => (path.startsWith('lib/') ? path.split('/').slice(0, 2).join('/') : undefined);

/** One cycle through the folder graph, if there is any (depth-first, with the path kept). */
function folderCycle(graph: Map<string, Set<string>>): string[] | undefined {
  const done = new Set<string>();
  const visit = (node: string, path: string[]): string[] | undefined => {
    if (path.includes(node)) return [...path.slice(path.indexOf(node)), node];
    if (done.has(node)) return undefined;
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next, [...path, node]);
      if (cycle) return cycle;
    }
    done.add(node);
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node, []);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the rule of the house (docs/architecture.md)', () => {
  // The module-level rules (no module cycle, platform knows no feature, features meet through their index.ts)
  // are dependency-cruiser's, in .dependency-cruiser.cjs, run by `npm run lint:deps`; this adds the folder level.
  test('no two folders of lib/ depend on each other, directly or through others', async () => {
    const result = await cruise(['lib'], { tsPreCompilationDeps: true, doNotFollow: { path: 'node_modules' } }, undefined, {
      tsConfig: { fileName: 'tsconfig.json' },
    });
    const modules = (result.output as { modules: IModule[] }).modules;
    const graph = new Map<string, Set<string>>();
    for (const module of modules) {
      const from = folderOf(module.source);
      if (!from) continue;
      for (const dependency of module.dependencies) {
        const to = folderOf(dependency.resolved);
        if (to && to !== from) graph.set(from, new Set([...(graph.get(from) ?? []), to]));
      }
    }
    assert.ok(graph.size >= 8, `the folder graph was read (${graph.size} folders)`);
    const cycle = folderCycle(graph);
    assert.equal(cycle, undefined, `folder cycle: ${cycle?.join(' → ')}`);
  });
});
