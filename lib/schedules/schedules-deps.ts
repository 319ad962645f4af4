import { accountLookup } from '#accounts/index.js';
import { requestStarter } from '#execution/index.js';
import { harnessLookup } from '#harnesses/index.js';
import { machineLookup } from '#machines/index.js';
import type { TableRef } from '#platform/table/table.js';
import { runsService } from '#runs/index.js';
import { usageMeter } from '#usage/index.js';
import type { FireDeps } from './fire.js';
import type { ScheduleDeps } from './schedules.js';
import { targetCheck } from './schedules.js';
import { schedulesRepo } from './schedules-repository.js';
import { environmentTimer } from './timer.js';

/** What a firing uses, on the service's table (the firings' worker, the trigger endpoint). */
export function fireDeps(table?: TableRef): FireDeps {
  return {
    schedules: schedulesRepo(table),
    starter: requestStarter(table),
    runs: runsService(table),
    machines: machineLookup(table),
    accounts: accountLookup(table),
    usage: usageMeter(table),
    timer: environmentTimer(),
  };
}

/** What creating, changing and deleting schedules use. */
export function scheduleDeps(table?: TableRef): ScheduleDeps {
  return {
    schedules: schedulesRepo(table),
    targets: targetCheck({ starter: requestStarter(table), harnesses: harnessLookup(table), machines: machineLookup(table) }),
    timer: environmentTimer(),
  };
}
