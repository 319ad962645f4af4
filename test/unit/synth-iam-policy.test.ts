import assert from 'node:assert/strict';
import { describe, test, vi } from 'vitest';
import { evaluate } from '#local/synth/iam-policy.js';
import type { PolicyStatement } from '#local/synth/model.js';

const tableArn = 'arn:aws:dynamodb:us-east-1:000000000000:table/svc-table';
const queueArn = 'arn:aws:sqs:us-east-1:000000000000:run-queue';

// What `table.grantReadData(fn)` synthesizes for a table with indexes.
const grantReadData: PolicyStatement = {
  Effect: 'Allow',
  Action: [
    'dynamodb:BatchGetItem',
    'dynamodb:GetRecords',
    'dynamodb:GetShardIterator',
    'dynamodb:Query',
    'dynamodb:GetItem',
    'dynamodb:Scan',
    'dynamodb:ConditionCheckItem',
    'dynamodb:DescribeTable',
  ],
  Resource: [tableArn, `${tableArn}/index/*`],
};

const noReport = () => undefined;

describe('evaluate (lib/local/synth/iam-policy.ts)', () => {
  test('a CDK read grant allows reads on the table and its indexes, nothing else', () => {
    const statements = [grantReadData];

    const decide = (action: string, resource: string) => evaluate(statements, { action, resource }, noReport);

    assert.equal(decide('dynamodb:GetItem', tableArn), 'allowed');
    assert.equal(decide('dynamodb:Query', `${tableArn}/index/gsi1`), 'allowed');
    assert.equal(decide('DynamoDB:getitem', tableArn), 'allowed', 'actions compare without case');
    assert.equal(decide('dynamodb:PutItem', tableArn), 'implicitDeny');
    assert.equal(decide('dynamodb:GetItem', 'arn:aws:dynamodb:us-east-1:000000000000:table/other'), 'implicitDeny');
    assert.equal(decide('dynamodb:GetItem', tableArn.toUpperCase()), 'implicitDeny', 'resources compare with case');
    assert.equal(decide('dynamodb:Query', `${tableArn}-copy`), 'implicitDeny');
  });

  test('`*` and `?` wildcards in actions and resources', () => {
    const statements: PolicyStatement[] = [{ Effect: 'Allow', Action: 'sqs:Get?ueue*', Resource: 'arn:aws:sqs:*:000000000000:run-*' }];

    assert.equal(evaluate(statements, { action: 'sqs:GetQueueUrl', resource: queueArn }, noReport), 'allowed');
    assert.equal(evaluate(statements, { action: 'sqs:GetQueueAttributes', resource: queueArn }, noReport), 'allowed');
    assert.equal(evaluate(statements, { action: 'sqs:GetXueueUrl', resource: 'arn:aws:sqs:us-east-1:000000000000:other' }, noReport), 'implicitDeny');
    assert.equal(evaluate(statements, { action: 'sqs:SendMessage', resource: queueArn }, noReport), 'implicitDeny');
  });

  test('an explicit Deny wins over any Allow', () => {
    const statements: PolicyStatement[] = [
      { Effect: 'Allow', Action: 'dynamodb:*', Resource: '*' },
      { Effect: 'Deny', Action: ['dynamodb:DeleteItem'], Resource: tableArn },
    ];

    assert.equal(evaluate(statements, { action: 'dynamodb:DeleteItem', resource: tableArn }, noReport), 'explicitDeny');
    assert.equal(evaluate(statements, { action: 'dynamodb:GetItem', resource: tableArn }, noReport), 'allowed');
  });

  test('NotAction and NotResource match everything but what they name', () => {
    const statements: PolicyStatement[] = [
      { Effect: 'Allow', NotAction: 'sqs:*', Resource: '*' },
      { Effect: 'Allow', Action: 'sqs:SendMessage', NotResource: [queueArn] },
    ];

    assert.equal(evaluate(statements, { action: 'dynamodb:GetItem', resource: tableArn }, noReport), 'allowed');
    assert.equal(evaluate(statements, { action: 'sqs:ReceiveMessage', resource: queueArn }, noReport), 'implicitDeny');
    assert.equal(evaluate(statements, { action: 'sqs:SendMessage', resource: queueArn }, noReport), 'implicitDeny');
    assert.equal(evaluate(statements, { action: 'sqs:SendMessage', resource: `${queueArn}-dlq` }, noReport), 'allowed');
  });

  test('a statement without Resource or NotResource grants nothing', () => {
    assert.equal(evaluate([{ Effect: 'Allow', Action: '*' }], { action: 'dynamodb:GetItem', resource: tableArn }, noReport), 'implicitDeny');
  });

  test('ForAllValues:StringLike on dynamodb:LeadingKeys: every key must match, and no key at all passes', () => {
    const statements: PolicyStatement[] = [
      { ...grantReadData, Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT#a1', 'ACCOUNT#a1#*'] } } },
    ];
    const query = (keys?: string[]) =>
      evaluate(statements, { action: 'dynamodb:Query', resource: tableArn, context: keys && { 'dynamodb:LeadingKeys': keys } }, noReport);

    assert.equal(query(['ACCOUNT#a1#RUN#r1']), 'allowed');
    assert.equal(query(['ACCOUNT#a1', 'ACCOUNT#a1#RUN#r1']), 'allowed');
    assert.equal(query(['ACCOUNT#a1#RUN#r1', 'ACCOUNT#a2#RUN#r1']), 'implicitDeny');
    assert.equal(query(undefined), 'allowed', 'as in AWS, ForAllValues holds for an absent key (a Scan)');
  });

  test('ForAnyValue needs one matching value and fails on an absent key', () => {
    const statements: PolicyStatement[] = [{ ...grantReadData, Condition: { 'ForAnyValue:StringEquals': { 'dynamodb:LeadingKeys': 'ACCOUNT#a1' } } }];
    const query = (keys?: string[]) =>
      evaluate(statements, { action: 'dynamodb:Query', resource: tableArn, context: keys && { 'dynamodb:LeadingKeys': keys } }, noReport);

    assert.equal(query(['ACCOUNT#a2', 'ACCOUNT#a1']), 'allowed');
    assert.equal(query(['ACCOUNT#a2']), 'implicitDeny');
    assert.equal(query(undefined), 'implicitDeny');
  });

  test('keys are ANDed, values ORed; negated operators hold for an absent key', () => {
    const statements: PolicyStatement[] = [
      {
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: '*',
        Condition: {
          StringEquals: { 'aws:RequestedRegion': ['us-east-1', 'eu-west-1'], 'aws:PrincipalAccount': '000000000000' },
          StringNotEquals: { 'x:tag': 'blocked' },
        },
      },
    ];
    const send = (context: Record<string, string>) => evaluate(statements, { action: 'sqs:SendMessage', resource: queueArn, context }, noReport);

    assert.equal(send({ 'aws:RequestedRegion': 'eu-west-1', 'aws:PrincipalAccount': '000000000000' }), 'allowed');
    assert.equal(send({ 'aws:requestedregion': 'us-east-1', 'aws:PrincipalAccount': '000000000000' }), 'allowed', 'condition keys compare without case');
    assert.equal(send({ 'aws:RequestedRegion': 'eu-west-1' }), 'implicitDeny');
    assert.equal(send({ 'aws:RequestedRegion': 'ap-south-1', 'aws:PrincipalAccount': '000000000000' }), 'implicitDeny');
    assert.equal(send({ 'aws:RequestedRegion': 'us-east-1', 'aws:PrincipalAccount': '000000000000', 'x:tag': 'blocked' }), 'implicitDeny');
  });

  test('ArnLike compares each ARN part; Bool, Null, Numeric, IgnoreCase and IfExists', () => {
    const allowIf = (condition: PolicyStatement['Condition']): PolicyStatement[] => [{ Effect: 'Allow', Action: '*', Resource: '*', Condition: condition }];
    const decide = (condition: PolicyStatement['Condition'], context: Record<string, string | string[]>) =>
      evaluate(allowIf(condition), { action: 'sqs:SendMessage', resource: queueArn, context }, noReport);

    assert.equal(decide({ ArnLike: { 'aws:SourceArn': 'arn:aws:sqs:*:*:run-*' } }, { 'aws:SourceArn': queueArn }), 'allowed');
    assert.equal(decide({ ArnLike: { 'aws:SourceArn': 'arn:aws:sqs:*:run-queue' } }, { 'aws:SourceArn': queueArn }), 'implicitDeny');
    assert.equal(decide({ ArnEquals: { 'aws:SourceArn': queueArn } }, { 'aws:SourceArn': `${queueArn}x` }), 'implicitDeny');
    assert.equal(decide({ Bool: { 'aws:SecureTransport': true } }, { 'aws:SecureTransport': 'true' }), 'allowed');
    assert.equal(decide({ Bool: { 'aws:SecureTransport': 'true' } }, { 'aws:SecureTransport': 'false' }), 'implicitDeny');
    assert.equal(decide({ Null: { 'x:missing': 'true', 'x:present': 'false' } }, { 'x:present': 'v' }), 'allowed');
    assert.equal(decide({ Null: { 'x:present': 'true' } }, { 'x:present': 'v' }), 'implicitDeny');
    assert.equal(decide({ NumericLessThan: { 'x:n': '10' } }, { 'x:n': '9' }), 'allowed');
    assert.equal(decide({ NumericLessThan: { 'x:n': '10' } }, { 'x:n': '10' }), 'implicitDeny');
    assert.equal(decide({ StringEqualsIgnoreCase: { 'x:s': 'ABC' } }, { 'x:s': 'abc' }), 'allowed');
    assert.equal(decide({ StringEqualsIfExists: { 'x:s': 'abc' } }, {}), 'allowed');
    assert.equal(decide({ StringEquals: { 'x:s': 'abc' } }, {}), 'implicitDeny');
    assert.equal(decide({ 'ForAllValues:StringNotLike': { 'x:set': 'bad-*' } }, { 'x:set': ['ok', 'bad-1'] }), 'implicitDeny');
  });

  test('an unknown operator makes its statement not match, and is reported', () => {
    const reported: string[] = [];
    const statements: PolicyStatement[] = [
      { Effect: 'Allow', Action: 'dynamodb:*', Resource: '*' },
      { Effect: 'Deny', Action: 'dynamodb:GetItem', Resource: '*', Condition: { DateGreaterThan: { 'aws:CurrentTime': '2020-01-01T00:00:00Z' } } },
      { Effect: 'Allow', Action: 'sqs:*', Resource: '*', Condition: { 'Sometimes:StringEquals': { 'x:s': 'a' } } },
    ];

    assert.equal(
      evaluate(statements, { action: 'dynamodb:GetItem', resource: tableArn }, (operator) => reported.push(operator)),
      'allowed',
    );
    assert.equal(
      evaluate(statements, { action: 'sqs:SendMessage', resource: queueArn, context: { 'x:s': 'a' } }, (operator) => reported.push(operator)),
      'implicitDeny',
    );
    assert.deepEqual(reported, ['DateGreaterThan', 'Sometimes:StringEquals']);
  });

  test('by default an unknown operator is warned about once, however often it is met', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const statements: PolicyStatement[] = [{ Effect: 'Allow', Action: '*', Resource: '*', Condition: { StringMatchesRegex: { 'x:s': '.*' } } }];

    evaluate(statements, { action: 'sqs:SendMessage', resource: queueArn });
    evaluate(statements, { action: 'sqs:SendMessage', resource: queueArn });

    assert.equal(warn.mock.calls.length, 1);
    assert.match(String(warn.mock.calls[0]?.[0]), /StringMatchesRegex/);
    warn.mockRestore();
  });
});
