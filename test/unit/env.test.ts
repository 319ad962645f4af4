import assert from 'node:assert/strict';
import { test } from 'vitest';
import { readEnv } from '#platform/config/env.js';

test('emulator endpoints: our variables first, then the AWS SDK’s service-specific and global ones (LocalStack sets AWS_ENDPOINT_URL)', () => {
  assert.equal(readEnv({}).dynamodbEndpoint, undefined);
  assert.equal(readEnv({ AWS_ENDPOINT_URL: 'http://ls:4566' }).dynamodbEndpoint, 'http://ls:4566');
  assert.equal(readEnv({ AWS_ENDPOINT_URL: 'http://ls:4566' }).sqsEndpoint, 'http://ls:4566');
  assert.equal(readEnv({ AWS_ENDPOINT_URL: 'http://ls:4566', AWS_ENDPOINT_URL_DYNAMODB: 'http://ddb:8000' }).dynamodbEndpoint, 'http://ddb:8000');
  assert.equal(readEnv({ AWS_ENDPOINT_URL_SQS: 'http://q:1', SQS_ENDPOINT: 'http://fauxqs:2' }).sqsEndpoint, 'http://fauxqs:2');
  assert.equal(readEnv({ DYNAMODB_ENDPOINT: 'http://local:8000', AWS_ENDPOINT_URL: 'http://ls:4566' }).dynamodbEndpoint, 'http://local:8000');
});
