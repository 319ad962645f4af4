import { eventBridgeTimer } from './eventbridge.js';

/** Where a schedule's firings come from: EventBridge Scheduler in AWS; locally nothing (the local loop fires from the table). */
export interface ScheduleTimer {
  /** Creates or replaces the timer of a schedule (enabled or not). */
  put(schedule: { id: string; expression: string; timezone: string; enabled: boolean }): Promise<void>;
  /** Removes it; absent is fine. */
  remove(scheduleId: string): Promise<void>;
}

export const tableOnlyTimer: ScheduleTimer = { put: async () => {}, remove: async () => {} };

/**
 * The timer of this environment: EventBridge Scheduler when the stack names
 * its schedule group (`SCHEDULER_GROUP_NAME`), else none (`npm start`, whose
 * loop fires from the table). Imported statically: ./eventbridge.ts loads
 * the Scheduler client itself on its first call, and a dynamic import of it
 * here made esbuild keep every export of the DynamoDB client in the bundle
 * (about 57 KB a function).
 */
export function scheduleTimer(env: NodeJS.ProcessEnv = process.env): ScheduleTimer {
  return env.SCHEDULER_GROUP_NAME ? eventBridgeTimer(env) : tableOnlyTimer;
}

/** scheduleTimer, chosen on the first call (the environment as it is then): what a handler holds from its start. */
export function environmentTimer(env: NodeJS.ProcessEnv = process.env): ScheduleTimer {
  let timer: ScheduleTimer | undefined;
  const chosen = () => (timer ??= scheduleTimer(env));
  return {
    put: (schedule) => chosen().put(schedule),
    remove: (scheduleId) => chosen().remove(scheduleId),
  };
}
