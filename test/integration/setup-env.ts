import { inject } from 'vitest';

// The emulators and table of this run (test/integration/global-setup.ts), where
// test/helpers/stack.ts and the processes tests spawn look for them.
process.env.DYNAMODB_ENDPOINT = inject('dynamodbEndpoint');
process.env.SQS_ENDPOINT = inject('sqsEndpoint');
process.env.TABLE_NAME = inject('tableName');
