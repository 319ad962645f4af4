import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from './handlers.js';

/**
 * Where a running `npm start` says its emulators are, so the operator CLI
 * reaches the same DynamoDB Local without being told.
 */
const STATE_FILE = resolve(REPO_ROOT, '.local-stack.json');

export interface LocalStackState {
  pid: number;
  url: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  tableName: string;
}

export function writeLocalStackState(state: LocalStackState): void {
  writeFileSync(STATE_FILE, `${JSON.stringify(state, null, 2)}\n`);
}

export function clearLocalStackState(): void {
  rmSync(STATE_FILE, { force: true });
}

export function readLocalStackState(): LocalStackState | undefined {
  try {
    const state = JSON.parse(readFileSync(STATE_FILE, 'utf8')) as LocalStackState;
    process.kill(state.pid, 0);
    return state;
  } catch {
    return undefined;
  }
}
