/**
 * `@workflow-service/client`: the typed TypeScript client of the workflow and agent execution
 * service, generated from its OpenAPI document (README.md beside this folder).
 */
import type { components } from './schema.js';

export { type Client, type ClientMethod, type ClientOptions, createClient, type Success } from './client.js';
export { ProblemError } from './problem.js';
export type { Fetch, Token } from './retry.js';
export type { components, operations, paths } from './schema.js';
export type { StreamOptions } from './sse.js';
export type { RunEvent, WorkflowStreamEvent } from './streams.js';

/** Every schema of the document by name: `Schemas['Run']`, `Schemas['WorkflowVersion']`, … */
export type Schemas = components['schemas'];
