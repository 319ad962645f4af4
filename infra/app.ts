import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { WorkflowServiceStack } from './stack.js';

/**
 * `cdk synth` / `cdk deploy` entry (see cdk.json). Context:
 *   stackName  – default `WorkflowService`
 *   baseUrl    – public root for BASE_URL (custom domain, or the BaseUrl output
 *                of a first deploy so the streaming function gets it too)
 *   queuePrefix – physical queue name prefix, default `<stackName>-`
 *   dynamodbEndpoint / sqsEndpoint – ONLY for running cdk.out under SAM
 *                locally (declares DYNAMODB_ENDPOINT / SQS_ENDPOINT); never for AWS
 *   outboundAllowedHosts, outboundAllowInsecure, openaiBaseUrl, openaiApiKey –
 *                worker settings (see WorkflowServiceStackProps.workerEnvironment);
 *                httpNodeAllowedHosts, httpNodeAllowInsecure are the outbound
 *                settings' earlier keys, used when the new ones are not given
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
  localEndpoints: context('dynamodbEndpoint') || context('sqsEndpoint') ? { dynamodb: context('dynamodbEndpoint'), sqs: context('sqsEndpoint') } : undefined,
  workerEnvironment: Object.fromEntries(
    (
      [
        ['outboundAllowedHosts', 'OUTBOUND_ALLOWED_HOSTS'],
        ['outboundAllowInsecure', 'OUTBOUND_ALLOW_INSECURE'],
        // Earlier keys: the stack sets them under the names above unless those are given (workerEnvironmentOf).
        ['httpNodeAllowedHosts', 'HTTP_NODE_ALLOWED_HOSTS'],
        ['httpNodeAllowInsecure', 'HTTP_NODE_ALLOW_INSECURE'],
        ['openaiBaseUrl', 'OPENAI_BASE_URL'],
        ['openaiApiKey', 'OPENAI_API_KEY'],
      ] as const
    ).flatMap(([key, name]) => (context(key) ? [[name, context(key)!]] : [])),
  ),
  // Environment-agnostic (no lookups): deploys to whatever account/region the CLI uses.
});

// cdk-nag 3 is a CDK validation plugin (v2 was an Aspect): unacknowledged
// findings fail `cdk synth` with a report (also written to cdk.out/validation-report.json).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
