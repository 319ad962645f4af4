import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { WorkflowServiceStack } from './stack.js';

/**
 * `cdk synth` / `cdk deploy` entry (see cdk.json). Context:
 *   stackName  – default `WorkflowService`
 *   baseUrl    – public root for BASE_URL (custom domain, or the BaseUrl output
 *                of a first deploy so the streaming function gets it too)
 *   queuePrefix – physical queue name prefix, default `<stackName>-`
 */
const app = new App();
const context = (key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === 'string' && value !== '' ? value : undefined;
};

new WorkflowServiceStack(app, context('stackName') ?? 'WorkflowService', {
  description: 'Workflow service: HTTP API, workers, streaming function and CloudFront in front',
  baseUrl: context('baseUrl'),
  queuePrefix: context('queuePrefix'),
  // Environment-agnostic (no lookups): deploys to whatever account/region the CLI uses.
});

Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
