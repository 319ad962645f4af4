import type { EndpointContract } from '#platform/http/contract.js';
import { RunsCancel } from './runs-cancel.js';
import { RunsCreate } from './runs-create.js';
import { RunsEvents } from './runs-events.js';
import { RunsFork } from './runs-fork.js';
import { RunsGet } from './runs-get.js';
import { RunsList } from './runs-list.js';

export const RUNS_ENDPOINTS: readonly EndpointContract[] = [RunsCreate, RunsList, RunsGet, RunsCancel, RunsFork, RunsEvents];
