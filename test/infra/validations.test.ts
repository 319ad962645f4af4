import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CfnResource } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { test } from 'vitest';
import { createServiceApp } from '../../infra/service-app.js';
import { cdkJsonContext } from '../../infra/synthesize.js';

test('the real app fails synthesis on a cdk-nag finding: a queue without SSL enforcement and a dead-letter queue', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'wfs-nag-'));
  try {
    const app = new App({ outdir, context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
    const stack = createServiceApp(app, () => undefined);
    new sqs.Queue(stack, 'Unchecked');
    assert.throws(() => app.synth(), /AwsSolutions-SQS3|AwsSolutions-SQS4/);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
});

test('the real app fails synthesis on a CloudFormation validation finding: a property the resource type does not have, a value of the wrong type', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'wfs-cfn-'));
  try {
    const app = new App({ outdir, context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
    const stack = createServiceApp(app, () => undefined);
    new CfnResource(stack, 'Malformed', { type: 'AWS::SQS::Queue', properties: { VisibilityTimeout: 'soon', Colour: 'blue' } });
    assert.throws(() => app.synth(), /CloudFormation Validate[\s\S]*CloudFormation Validate/);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
});
