import { Logger } from '@aws-lambda-powertools/logger';

let instance: Logger | undefined;

/**
 * One logger per execution environment; level from POWERTOOLS_LOG_LEVEL.
 * Built on the first log line, not at init: the handlers log only on errors
 * and stream closes, and constructing it sets up its own stdout/stderr
 * console, a few milliseconds of every cold start otherwise.
 */
export const logger = (): Logger => (instance ??= new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'workflow-service' }));
