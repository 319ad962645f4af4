import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import { type Jsonata, loadJsonata } from '#expressions/jsonata.js';
import { templatedLeaves } from '#expressions/template.js';
import { DEFINITION_MAX_BYTES } from '#platform/config/limits.js';
import type { FieldError } from '#platform/errors.js';
import { jsonPointer } from '#platform/http/parse.js';
import {
  NODE_CONFIG_SCHEMAS,
  NODE_TYPES,
  type NodeType,
  type WorkflowDefinition,
  type WorkflowDefinitionInput,
  type WorkflowEdge,
  type WorkflowNode,
} from './schemas/workflow-definition.js';

/**
 * The graph rules of a workflow definition (decisions.md, Workflow
 * definitions), checked before anything is stored. The zod schema has
 * already checked the shape; this checks what a schema cannot. Every fault
 * is one `errors` entry whose `name` is a JSON Pointer into the request body:
 *
 * | code | pointer | fault |
 * |---|---|---|
 * | `duplicate_id` | `/definition/nodes/i/id` | a node id used before (ids compare case-insensitively) |
 * | `duplicate_name` | `/definition/nodes/i/name` | a node name used before (names compare exactly) |
 * | `unknown_type` | `/definition/nodes/i/type` | not one of NODE_TYPES |
 * | zod codes, `required`, `unknown_field` | `/definition/nodes/i/config/...` | the config does not fit its type's schema |
 * | `invalid_expression` | `/definition/nodes/i/config/expression`, `/definition/edges/j/when`, an http node's `/definition/nodes/i/config/url`, `.../headers/<name>`, `.../body/...` | JSONata (of a `{{ }}` template) that does not compile |
 * | `unknown_node` | `/definition/edges/j/from`, `/definition/edges/j/to` | names no node, by id or by name |
 * | `self_loop` | `/definition/edges/j` | an edge from a node to itself |
 * | `duplicate_edge` | `/definition/edges/j` | the same from and to as an earlier edge |
 * | `when_not_allowed` | `/definition/edges/j/when` | `when` on an edge that does not leave a condition node |
 * | `cycle` | `/definition/edges/j` | the edge closes a cycle (every such edge is named) |
 * | `no_entry_node` | `/definition/nodes` | every node has an incoming edge |
 * | `too_large` | `/definition` | the stored definition would exceed DEFINITION_MAX_BYTES |
 *
 * Edges name their nodes by id or by name (ids win when a string is both);
 * the stored definition always carries ids. Nodes without an id get a UUID.
 * References of `workflow` nodes to stored versions are returned for the
 * caller to check against the table (see lib/workflows/workflow-versions.ts).
 */

export type DefinitionInput = z.output<typeof WorkflowDefinitionInput>;

/** A `workflow` node's reference to a stored version, to be checked by the caller. */
export interface VersionReference {
  /** Pointer of the node's `config`. */
  configPointer: string;
  versionId: string;
  entryNodeIds: string[];
}

export interface DefinitionCheck {
  /** Empty when the definition is valid. */
  errors: FieldError[];
  /** The definition as it would be stored: ids assigned, edges by id, configs with defaults. */
  definition: WorkflowDefinition;
  /** Nodes with no incoming edge, in node order. */
  entryNodeIds: string[];
  references: VersionReference[];
}

const pointer = (...segments: readonly PropertyKey[]): string => jsonPointer(segments);

const fault = (name: string, code: string, reason: string): FieldError => ({ name, location: 'body', reason, code });

const isNodeType = (type: string): type is NodeType => (NODE_TYPES as readonly string[]).includes(type);

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** A config's zod issues as faults: unknown keys one by one, a missing value as `required`. */
function configFaults(issues: readonly z.core.$ZodIssue[], config: unknown, base: string): FieldError[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => fault(base + pointer(...issue.path, key), 'unknown_field', "is not a field of this node type's config"));
    }
    const missing = issue.code === 'invalid_type' && valueAt(config, issue.path) === undefined;
    return [fault(base + pointer(...issue.path), missing ? 'required' : issue.code, missing ? 'is required' : issue.message)];
  });
}

function expressionFault(jsonata: Jsonata | undefined, expression: string, name: string): FieldError | undefined {
  if (!jsonata) throw new Error('an expression was found that needsJsonata() did not see');
  try {
    jsonata(expression);
    return undefined;
  } catch (error) {
    const { message, position } = error as { message?: string; position?: number };
    const where = typeof position === 'number' ? ` (at character ${position})` : '';
    return fault(name, 'invalid_expression', `is not a valid JSONata expression: ${message ?? 'syntax error'}${where}`);
  }
}

/** Every `{{ }}` template of an http config (url, header values, body strings) must compile; one fault per string. */
function templateFaults(jsonata: Jsonata | undefined, config: Record<string, unknown>, base: string): FieldError[] {
  return templatedLeaves({ url: config.url, headers: config.headers, body: config.body }).flatMap(({ path, expressions }) => {
    const name = base + pointer(...path);
    const bad = expressions.map((e) => expressionFault(jsonata, e, name)).find(Boolean);
    return bad ? [bad] : [];
  });
}

/**
 * Checks a definition and builds the form that is stored. `root` is the
 * pointer of the definition in the request body.
 */
/** Whether a definition holds any JSONata: a transform, an edge `when`, an http config with a `{{ }}` template. */
function needsJsonata(input: DefinitionInput): boolean {
  return (
    input.edges.some((edge) => edge.when !== undefined) ||
    input.nodes.some((node) => node.type === 'transform' || (node.type === 'http' && JSON.stringify(node.config).includes('{{')))
  );
}

export async function checkDefinition(
  input: DefinitionInput,
  options: { newId?: () => string; root?: readonly string[]; maxBytes?: number } = {},
): Promise<DefinitionCheck> {
  const jsonata = needsJsonata(input) ? await loadJsonata() : undefined;
  const newId = options.newId ?? randomUUID;
  const root = options.root ?? ['definition'];
  const at = (...path: PropertyKey[]) => pointer(...root, ...path);
  const errors: FieldError[] = [];
  const references: VersionReference[] = [];

  // Nodes: ids, names, types, configs.
  const nodes: WorkflowNode[] = [];
  const byId = new Map<string, number>();
  const byName = new Map<string, number>();
  input.nodes.forEach((raw, i) => {
    const id = raw.id ? raw.id.toLowerCase() : newId();
    const sameId = byId.get(id);
    if (sameId !== undefined) errors.push(fault(at('nodes', i, 'id'), 'duplicate_id', `repeats the id of node ${sameId}`));
    else byId.set(id, i);
    const sameName = byName.get(raw.name);
    if (sameName !== undefined) errors.push(fault(at('nodes', i, 'name'), 'duplicate_name', `repeats the name of node ${sameName}; names must be unique`));
    else byName.set(raw.name, i);

    let config: Record<string, unknown> = raw.config;
    if (!isNodeType(raw.type)) {
      errors.push(fault(at('nodes', i, 'type'), 'unknown_type', `must be one of ${NODE_TYPES.join(', ')}`));
    } else {
      const parsed = NODE_CONFIG_SCHEMAS[raw.type].safeParse(raw.config);
      if (!parsed.success) {
        errors.push(...configFaults(parsed.error.issues, raw.config, at('nodes', i, 'config')));
      } else {
        config = parsed.data as Record<string, unknown>;
        if (raw.type === 'transform') {
          const bad = expressionFault(jsonata, config.expression as string, at('nodes', i, 'config', 'expression'));
          if (bad) errors.push(bad);
        }
        if (raw.type === 'http') errors.push(...templateFaults(jsonata, config, at('nodes', i, 'config')));
        if (raw.type === 'workflow') {
          references.push({
            configPointer: at('nodes', i, 'config'),
            versionId: (config.workflow_version_id as string).toLowerCase(),
            entryNodeIds: ((config.entry_node_ids as string[] | undefined) ?? []).map((e) => e.toLowerCase()),
          });
        }
      }
    }
    nodes.push({
      id,
      name: raw.name,
      type: raw.type as NodeType,
      config,
      ...(raw.retry ? { retry: raw.retry } : {}),
      ...(raw.timeout_ms !== undefined ? { timeout_ms: raw.timeout_ms } : {}),
    });
  });

  // Edges: endpoints by id or name, no self-loops or repeats, `when` only after a condition.
  const resolve = (ref: string): number | undefined => byId.get(ref.toLowerCase()) ?? byName.get(ref);
  const edges: WorkflowEdge[] = [];
  const graph: Array<Array<{ index: number; to: number }>> = nodes.map(() => []);
  const hasIncoming = nodes.map(() => false);
  const pairs = new Map<string, number>();
  input.edges.forEach((edge, j) => {
    const from = resolve(edge.from);
    const to = resolve(edge.to);
    if (from === undefined) errors.push(fault(at('edges', j, 'from'), 'unknown_node', 'names no node of this definition, by id or by name'));
    if (to === undefined) errors.push(fault(at('edges', j, 'to'), 'unknown_node', 'names no node of this definition, by id or by name'));
    if (from !== undefined && to !== undefined) {
      const earlier = pairs.get(`${from}>${to}`);
      if (from === to) {
        errors.push(fault(at('edges', j), 'self_loop', `connects node "${nodes[from]!.name}" to itself`));
      } else if (earlier !== undefined) {
        errors.push(fault(at('edges', j), 'duplicate_edge', `connects the same nodes as edge ${earlier}`));
      } else {
        pairs.set(`${from}>${to}`, j);
        graph[from]!.push({ index: j, to });
        hasIncoming[to] = true;
      }
    }
    if (edge.when !== undefined) {
      if (from !== undefined && nodes[from]!.type !== 'condition') {
        errors.push(fault(at('edges', j, 'when'), 'when_not_allowed', 'is only allowed on edges leaving a condition node'));
      } else {
        const bad = expressionFault(jsonata, edge.when, at('edges', j, 'when'));
        if (bad) errors.push(bad);
      }
    }
    edges.push({
      from: from !== undefined ? nodes[from]!.id : edge.from,
      to: to !== undefined ? nodes[to]!.id : edge.to,
      ...(edge.when !== undefined ? { when: edge.when } : {}),
    });
  });

  // Cycles: a depth-first walk in node and edge order; every edge that
  // reaches back to a node on the current path closes a cycle.
  const cycles: Array<{ index: number; path: string[] }> = [];
  const state = new Uint8Array(nodes.length); // 0 unseen, 1 on the path, 2 done
  for (let start = 0; start < nodes.length; start++) {
    if (state[start] !== 0) continue;
    const path: Array<{ node: number; next: number }> = [{ node: start, next: 0 }];
    state[start] = 1;
    while (path.length > 0) {
      const frame = path.at(-1)!;
      const edge = graph[frame.node]![frame.next++];
      if (!edge) {
        state[frame.node] = 2;
        path.pop();
      } else if (state[edge.to] === 1) {
        const from = path.findIndex((f) => f.node === edge.to);
        cycles.push({ index: edge.index, path: [...path.slice(from).map((f) => nodes[f.node]!.name), nodes[edge.to]!.name] });
      } else if (state[edge.to] === 0) {
        state[edge.to] = 1;
        path.push({ node: edge.to, next: 0 });
      }
    }
  }
  for (const cycle of cycles.sort((a, b) => a.index - b.index)) {
    errors.push(fault(at('edges', cycle.index), 'cycle', `closes a cycle: ${cycle.path.join(' → ')}`));
  }

  const entryNodeIds = nodes.filter((_, i) => !hasIncoming[i]).map((n) => n.id);
  if (entryNodeIds.length === 0) {
    errors.push(fault(at('nodes'), 'no_entry_node', 'every node has an incoming edge; at least one node must have none'));
  }

  const definition: WorkflowDefinition = { nodes, edges };
  const maxBytes = options.maxBytes ?? DEFINITION_MAX_BYTES;
  const bytes = Buffer.byteLength(JSON.stringify(definition));
  if (bytes > maxBytes) errors.push(fault(pointer(...root), 'too_large', `is ${bytes} bytes as stored; at most ${maxBytes} are allowed`));

  return { errors, definition, entryNodeIds, references };
}
