import { Logger } from '@aws-lambda-powertools/logger';

/** One logger per execution environment; level from POWERTOOLS_LOG_LEVEL. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'workflow-service' });
