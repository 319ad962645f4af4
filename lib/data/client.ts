import { localCredentials, type CredentialProvider } from '../aws/credentials.js';
import { jsonClient } from '../aws/json-client.js';
import { serviceEnv, type ServiceEnv } from '../config/env.js';
import { documentDb, type DocumentDb } from './document-db.js';

/**
 * DynamoDB through the JSON protocol (lib/aws/json-client.ts), not the AWS
 * SDK: see docs/benchmarks.md, section 2, for what the SDK costs a cold start.
 */
export function createDocumentDb(env: ServiceEnv = serviceEnv, credentials?: CredentialProvider): DocumentDb {
  return documentDb(
    jsonClient({
      service: 'dynamodb',
      targetPrefix: 'DynamoDB_20120810',
      region: env.region,
      endpoint: env.dynamodbEndpoint,
      // An emulator accepts any signature; in AWS the function role's credentials are in the environment.
      credentials: credentials ?? (env.dynamodbEndpoint ? localCredentials : undefined),
    }),
  );
}

let db: DocumentDb | undefined;

/**
 * Created once per execution environment, on first use (after the local
 * stack has set the endpoint), and reused across invocations.
 */
export const documentClient = (): DocumentDb => (db ??= createDocumentDb());
