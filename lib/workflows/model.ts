import type { WorkflowDefinition } from './schemas/workflow-definition.js';

/** Workflows, their versions and chats as stored and read. No I/O. */

export interface Workflow {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  latest_version_id: string | null;
  /** How many versions exist; the next one is numbered `version_count + 1`. */
  version_count: number;
  created_at: string;
  updated_at: string;
}

/** An immutable, validated version of a workflow. The execution engine reads these. */
export interface WorkflowVersion {
  id: string;
  workflow_id: string;
  account_id: string;
  /** 1, 2, 3… per workflow. */
  version: number;
  definition: WorkflowDefinition;
  entry_node_ids: string[];
  created_at: string;
}

/** A list position: the gsi1 sort key of the last workflow seen, `<created_at>#<id>`. */
export const WORKFLOW_POSITION = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z#[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Names are searched case-insensitively through this stored, folded copy. */
export const foldName = (name: string): string => name.toLowerCase();

/** A chat session; its id is the context memory id. */
export interface Chat {
  id: string;
  account_id: string;
  title: string | null;
  workflow_id: string | null;
  /** The machine the chat is bound to (by its first run); null until then. */
  machine_id: string | null;
  /** The chat's newest run (its busy policy looks at it); null before its first. */
  last_run_id: string | null;
  created_at: string;
}
