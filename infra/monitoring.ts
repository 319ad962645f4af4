import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE } from '#platform/observability/metric-names.js';

const PERIOD = Duration.minutes(5);
/** CloudWatch allows at most 10 metrics in an alarm's math expression. */
const METRICS_PER_ALARM = 10;
/** A worker queue whose oldest message waited this long is not being drained. */
export const OLDEST_MESSAGE_ALARM_SECONDS = 900;
/** The share of API answers that are 5xx, in percent, that raises the alarm. */
export const API_5XX_ALARM_PERCENT = 5;

/** The topic the alarms notify: with an e-mail subscription when the operator gives `alarmEmail`. */
export function alarmTopic(scope: Construct, email: string | undefined): sns.Topic {
  const topic = new sns.Topic(scope, 'AlarmTopic', { displayName: `${Stack.of(scope).stackName} alarms`, enforceSSL: true });
  if (email) topic.addSubscription(new subscriptions.EmailSubscription(email));
  Validations.of(topic).acknowledge({
    id: 'AwsSolutions-SNS2',
    reason:
      'CloudWatch alarms cannot publish to a topic encrypted with the AWS managed SNS key, and a customer managed key costs 1 USD a month at rest; alarm notifications carry no user data.',
  });
  return topic;
}

function notify(alarm: cloudwatch.Alarm, topic: sns.ITopic | undefined): cloudwatch.Alarm {
  if (topic) alarm.addAlarmAction(new SnsAction(topic));
  return alarm;
}

/** Errors and throttles of a feature's functions: one alarm of each per ten functions (a sum in metric math). */
export function functionAlarms(scope: Construct, feature: string, functions: readonly lambda.IFunction[], topic: sns.ITopic | undefined): void {
  for (let start = 0; start < functions.length; start += METRICS_PER_ALARM) {
    const chunk = functions.slice(start, start + METRICS_PER_ALARM);
    const part = start === 0 ? '' : String(start / METRICS_PER_ALARM + 1);
    for (const [kind, metricOf] of [
      ['Errors', (fn: lambda.IFunction) => fn.metricErrors({ period: PERIOD, statistic: 'Sum' })],
      ['Throttles', (fn: lambda.IFunction) => fn.metricThrottles({ period: PERIOD, statistic: 'Sum' })],
    ] as const) {
      const usingMetrics = Object.fromEntries(chunk.map((fn, i) => [`m${i}`, metricOf(fn)]));
      const sum = new cloudwatch.MathExpression({
        expression: Object.keys(usingMetrics).join(' + '),
        usingMetrics,
        period: PERIOD,
        label: `${feature} ${kind}`,
      });
      notify(
        sum.createAlarm(scope, `Function${kind}${part}`, {
          alarmDescription: `A function of the ${feature} feature had ${kind.toLowerCase()} in the last 5 minutes.`,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
        topic,
      );
    }
  }
}

export interface ServiceMonitoringProps {
  readonly httpApi: HttpApi;
  readonly queues: readonly { readonly name: string; readonly queue: sqs.IQueue; readonly dlq: sqs.IQueue }[];
  readonly topic?: sns.ITopic;
}

/** The root stack's alarms (dead letters, stuck queues, the API's 5xx rate) and the service dashboard. */
export function serviceMonitoring(scope: Construct, props: ServiceMonitoringProps): cloudwatch.Dashboard {
  const { httpApi, queues, topic } = props;
  for (const { name, queue, dlq } of queues) {
    notify(
      dlq.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }).createAlarm(scope, `${name}DeadLetters`, {
        alarmDescription: `Messages of queue ${name} were dead-lettered: work that failed every attempt.`,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      topic,
    );
    notify(
      queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' }).createAlarm(scope, `${name}OldestMessage`, {
        alarmDescription: `The oldest message of queue ${name} has waited over ${OLDEST_MESSAGE_ALARM_SECONDS / 60} minutes: its worker is not keeping up or is failing.`,
        threshold: OLDEST_MESSAGE_ALARM_SECONDS,
        evaluationPeriods: 2,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      topic,
    );
  }
  const serverErrors = httpApi.metricServerError({ period: PERIOD, statistic: 'Sum' });
  const requests = httpApi.metricCount({ period: PERIOD, statistic: 'SampleCount' });
  const errorRate = new cloudwatch.MathExpression({
    expression: 'IF(requests > 0, 100 * errors / requests, 0)',
    usingMetrics: { errors: serverErrors, requests },
    period: PERIOD,
    label: 'API 5xx %',
  });
  notify(
    errorRate.createAlarm(scope, 'Api5xxRate', {
      alarmDescription: `Over ${API_5XX_ALARM_PERCENT}% of API answers were 5xx for 10 minutes.`,
      threshold: API_5XX_ALARM_PERCENT,
      evaluationPeriods: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
    topic,
  );
  return dashboard(scope, { serverErrors, requests, errorRate, httpApi, queues });
}

function dashboard(
  scope: Construct,
  parts: {
    serverErrors: cloudwatch.IMetric;
    requests: cloudwatch.IMetric;
    errorRate: cloudwatch.IMetric;
    httpApi: HttpApi;
    queues: ServiceMonitoringProps['queues'];
  },
): cloudwatch.Dashboard {
  const stackName = Stack.of(scope).stackName;
  // Every function of the stack by a search on its name (CloudFormation names them after the stack): no list to keep, nothing per function.
  const lambdaSearch = (metric: string) =>
    new cloudwatch.MathExpression({
      expression: `SEARCH('{AWS/Lambda,FunctionName} MetricName="${metric}" "${stackName}"', 'Sum', 300)`,
      label: metric,
      period: PERIOD,
    });
  const serviceMetric = (name: string, dimension?: string) =>
    new cloudwatch.MathExpression({
      expression: `SEARCH('{${METRICS_NAMESPACE},service${dimension ? `,${dimension}` : ''}} MetricName="${name}"', 'Sum', 300)`,
      label: name,
      period: PERIOD,
    });
  const board = new cloudwatch.Dashboard(scope, 'Dashboard', { defaultInterval: Duration.hours(6) });
  board.addWidgets(
    new cloudwatch.GraphWidget({ title: 'API requests and 5xx', left: [parts.requests, parts.serverErrors], right: [parts.errorRate], width: 12 }),
    new cloudwatch.GraphWidget({
      title: 'API latency (p50, p99)',
      left: [parts.httpApi.metricLatency({ statistic: 'p50' }), parts.httpApi.metricLatency({ statistic: 'p99' })],
      width: 12,
    }),
  );
  board.addWidgets(
    new cloudwatch.GraphWidget({ title: 'Function errors', left: [lambdaSearch('Errors')], width: 12 }),
    new cloudwatch.GraphWidget({ title: 'Function throttles', left: [lambdaSearch('Throttles')], width: 12 }),
  );
  board.addWidgets(
    new cloudwatch.GraphWidget({
      title: 'Workflow requests',
      left: [serviceMetric(METRIC.workflowRequestsStarted), serviceMetric(METRIC.workflowRequestsEnded, 'status')],
      width: 8,
    }),
    new cloudwatch.GraphWidget({ title: 'Runs', left: [serviceMetric(METRIC.runsStarted), serviceMetric(METRIC.runsEnded, 'status')], width: 8 }),
    new cloudwatch.GraphWidget({ title: 'Node executions', left: [serviceMetric(METRIC.nodeExecutions, 'status')], width: 8 }),
  );
  board.addWidgets(
    new cloudwatch.GraphWidget({
      title: 'Dead letters',
      left: parts.queues.map(({ name, dlq }) => dlq.metricApproximateNumberOfMessagesVisible({ label: name, period: PERIOD, statistic: 'Maximum' })),
      width: 12,
    }),
    new cloudwatch.GraphWidget({
      title: 'Age of the oldest message (s)',
      left: parts.queues.map(({ name, queue }) => queue.metricApproximateAgeOfOldestMessage({ label: name, period: PERIOD, statistic: 'Maximum' })),
      width: 12,
    }),
  );
  return board;
}
