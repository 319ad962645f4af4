import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { OPENAI_KEY_PARAMETER, WorkflowServiceStack } from './stack.js';

/**
 * The app `cdk synth` and `cdk deploy` build (infra/app.ts), from the App's
 * context (cdk.json, `-c key=value`); the infra test builds the same one.
 * Context:
 *   stackName  – default `WorkflowService`
 *   baseUrl    – public root for BASE_URL (custom domain, or the BaseUrl output
 *                of a first deploy so the streaming functions get it too)
 *   queuePrefix – physical queue name prefix, default `<stackName>-`
 *   alarmEmail – an address the alarm topic e-mails
 *   openai=true, openaiBaseUrl – the OpenAI-compatible provider; its key is the
 *                NoEcho parameter OpenAiApiKey at deploy, or an existing secret
 *                (openaiApiKeySecretArn). `openaiApiKey` (a key in context) only
 *                turns the provider on: its value is never read into the template.
 *   outboundAllowedHosts, outboundAllowInsecure – the outbound settings
 *                (httpNodeAllowedHosts, httpNodeAllowInsecure: their earlier keys)
 *   dynamodbEndpoint / sqsEndpoint – ONLY for running cdk.out under SAM
 *                locally (declares DYNAMODB_ENDPOINT / SQS_ENDPOINT); never for AWS
 */
export function createServiceApp(app: App, log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): WorkflowServiceStack {
  const context = (key: string): string | undefined => {
    const value: unknown = app.node.tryGetContext(key);
    return typeof value === 'string' && value !== '' ? value : typeof value === 'boolean' ? String(value) : undefined;
  };
  const keySecretArn = context('openaiApiKeySecretArn');
  const openai = context('openai') === 'true' || context('openaiApiKey') !== undefined || keySecretArn !== undefined;
  if (context('openaiApiKey') !== undefined && !keySecretArn) {
    log(`openaiApiKey: the key is not put in the template; deploy it as a parameter: cdk deploy --parameters ${OPENAI_KEY_PARAMETER}=<key>`);
  }
  const stack = new WorkflowServiceStack(app, context('stackName') ?? 'WorkflowService', {
    description: 'Workflow service: HTTP API, workers, streaming functions and CloudFront in front',
    baseUrl: context('baseUrl'),
    queuePrefix: context('queuePrefix'),
    alarmEmail: context('alarmEmail'),
    openai: openai ? { keySecretArn } : undefined,
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
        ] as const
      ).flatMap(([key, name]) => (context(key) ? [[name, context(key)!]] : [])),
    ),
    // Environment-agnostic (no lookups): deploys to whatever account/region the CLI uses.
  });
  // cdk-nag 3 is a CDK validation plugin: unacknowledged findings fail `cdk synth` with a report
  // (also written to cdk.out/validation-report.json), as CloudFormation's own rules do (cdk.json's
  // @aws-cdk/core:validateAgainstDefaultRules).
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return stack;
}
