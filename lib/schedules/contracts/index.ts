import type { EndpointContract } from '#platform/http/contract.js';
import { SchedulesCreate } from './schedules-create.js';
import { SchedulesDelete } from './schedules-delete.js';
import { SchedulesGet } from './schedules-get.js';
import { SchedulesList } from './schedules-list.js';
import { SchedulesTrigger } from './schedules-trigger.js';
import { SchedulesUpdate } from './schedules-update.js';

export const SCHEDULES_ENDPOINTS: readonly EndpointContract[] = [
  SchedulesCreate,
  SchedulesList,
  SchedulesGet,
  SchedulesUpdate,
  SchedulesDelete,
  SchedulesTrigger,
];
