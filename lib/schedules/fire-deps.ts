import { accountLookup } from '#accounts/index.js';
import { requestStarter } from '#execution/index.js';
import { machineLookup } from '#machines/index.js';
import type { TableRef } from '#platform/table/table.js';
import { runsService } from '#runs/index.js';
import { usageMeter } from '#usage/index.js';
import type { FireDeps } from './fire.js';
import { schedulesRepo } from './schedules-repository.js';
import { environmentTimer } from './timer.js';

/**
 * What a firing uses, on the service's table (the firings' worker, the
 * trigger endpoint). Apart from ./schedules-deps.ts: creating, changing and
 * deleting schedules never create runs, and their bundles need not load the
 * runs feature.
 */
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
