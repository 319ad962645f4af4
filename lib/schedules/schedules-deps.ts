import { requestChecker } from '#execution/index.js';
import { harnessLookup } from '#harnesses/index.js';
import { machineLookup } from '#machines/index.js';
import type { TableRef } from '#platform/table/table.js';
import { type ScheduleDeps, targetCheck } from './schedules.js';
import { schedulesRepo } from './schedules-repository.js';
import { environmentTimer } from './timer.js';

/** What creating, changing and deleting schedules use. */
export function scheduleDeps(table?: TableRef): ScheduleDeps {
  return {
    schedules: schedulesRepo(table),
    targets: targetCheck({ starter: requestChecker(table), harnesses: harnessLookup(table), machines: machineLookup(table) }),
    timer: environmentTimer(),
  };
}
