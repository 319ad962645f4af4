/**
 * What other features may use of harnesses (the runs): a harness of an
 * account by id and one of its files, whether it can run here, and the
 * catalog of its tools. Nothing here loads the MCP SDK.
 */
import type { TableRef } from '#platform/table/table.js';
import { type HarnessesRepo, harnessesRepo } from './harnesses-repository.js';

export type { HarnessConfig } from './harness-config.js';
export { ASK_USER, harnessTools, offeredName, type ToolView, toolCatalog } from './harness-tools.js';
export type { Harness, HarnessFileEntry } from './model.js';
export { runnability } from './runnability.js';

/** A harness of an account by id (undefined when it is not that account's), and a file's content by path. */
export const harnessLookup = (table?: TableRef): Pick<HarnessesRepo, 'get' | 'file'> => harnessesRepo(table);
