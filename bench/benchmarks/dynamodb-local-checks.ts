import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE_DEFINITION } from '#platform/table/definition.js';
import { purposeOf } from '../support/call-purpose.js';
import type { EngineStack } from '../support/engine-stack.js';
import { lineWriter, num } from '../support/format.js';
import type { RunObservation } from '../support/workflow-run.js';

/**
 * Part of section 4.1: how far DynamoDB Local's reported capacity can be
 * trusted. Probes with a known AWS figure, and a tally of where the cost
 * runs' reported figures agreed with the size-based ones.
 */

export interface CalibrationRow {
  case: string;
  /** What DynamoDB Local reported (table plus indexes), or null when it reported nothing. */
  local: number | null;
  /** The AWS rule, worked out by hand for this case. */
  aws: number;
  /** What the bench bills. */
  bench: number;
  basis: string;
}

export interface LocalChecks {
  singleWrites: { checked: number; agree: number; localAbove: number; localBelow: number };
  reads: { checked: number; agree: number; differ: number; differing: Array<{ purpose: string; calls: number; localUnits: number; sizedUnits: number }> };
  transactions: { calls: number; localUnits: number; sizedUnits: number };
  failedConditions: { calls: number; awsUnits: number };
  emptyQueries: { calls: number; awsUnits: number };
}

const { partitionKey, sortKey } = TABLE_DEFINITION;
const [gsi1] = TABLE_DEFINITION.globalSecondaryIndexes;

/**
 * A few calls on scratch items, through the proxy, whose AWS figure is known
 * by hand (1 write unit per KB; 1 read unit per 4 KB strongly consistent,
 * half eventually consistent; 2x for transactions; index copies billed as
 * writes; a failed conditional write billed on the existing item). The
 * report shows what DynamoDB Local said and what the bench bills.
 */
export async function calibrate(b: EngineStack): Promise<CalibrationRow[]> {
  b.ddb.configure({ sizing: true });
  const { db, tableName: TableName } = b.proxied;
  const tag = randomUUID().slice(0, 8);
  const key = (name: string) => ({ [partitionKey]: `BENCHCAL#${tag}#${name}`, [sortKey]: 'CAL' });
  const rows: CalibrationRow[] = [];
  const probe = async (label: string, aws: number, send: () => Promise<unknown>) => {
    const before = b.ddb.calls.length;
    await send().catch(() => undefined);
    const call = b.ddb.calls.slice(before).at(-1);
    rows.push({ case: label, local: call?.localUnits ?? null, aws, bench: call?.awsUnits ?? NaN, basis: call?.basis ?? 'none' });
  };
  const big = { ...key('big'), d: 'x'.repeat(3500) }; // about 3.5 KB
  const indexed = { ...key('indexed'), [gsi1!.partitionKey]: `BENCHCAL#${tag}`, [gsi1!.sortKey]: 'CAL', d: 'x'.repeat(1500) }; // about 1.5 KB, in gsi1
  await probe('PutItem of a 3.5 KB item', 4, () => db.send(new PutCommand({ TableName, Item: big })));
  await probe('PutItem of a 1.5 KB item with gsi1 keys (projection ALL)', 4, () => db.send(new PutCommand({ TableName, Item: indexed })));
  await probe('GetItem of the 3.5 KB item, strongly consistent', 1, () => db.send(new GetCommand({ TableName, Key: key('big'), ConsistentRead: true })));
  await probe('GetItem of the 3.5 KB item, eventually consistent', 0.5, () => db.send(new GetCommand({ TableName, Key: key('big') })));
  await db.send(new PutCommand({ TableName, Item: { ...key('small1'), n: 1 } }));
  await db.send(new PutCommand({ TableName, Item: { ...key('small2'), n: 1 } }));
  const add = (k: Record<string, string>) => ({ Update: { TableName, Key: k, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } } });
  await probe('TransactWriteItems: 2 updates of items under 1 KB', 4, () =>
    db.send(new TransactWriteCommand({ TransactItems: [add(key('small1')), add(key('small2'))] })),
  );
  await probe('TransactWriteItems: update the 3.5 KB item and the indexed 1.5 KB item', 16, () =>
    db.send(new TransactWriteCommand({ TransactItems: [add(key('big')), add(key('indexed'))] })),
  );
  await probe('UpdateItem of the 3.5 KB item whose condition fails', 4, () =>
    db.send(
      new UpdateCommand({
        TableName,
        Key: key('big'),
        UpdateExpression: 'SET n = :one',
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': partitionKey },
        ExpressionAttributeValues: { ':one': 1 },
      }),
    ),
  );
  await probe('Query of an empty partition, strongly consistent', 1, () =>
    db.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': partitionKey },
        ExpressionAttributeValues: { ':pk': `BENCHCAL#${tag}#none` },
        ConsistentRead: true,
      }),
    ),
  );
  return rows;
}

/** Where DynamoDB Local's figure and the size-based one agreed in the cost runs, and the calls billed on another basis. */
export function localChecks(runs: RunObservation[]): LocalChecks {
  const checks: LocalChecks = {
    singleWrites: { checked: 0, agree: 0, localAbove: 0, localBelow: 0 },
    reads: { checked: 0, agree: 0, differ: 0, differing: [] },
    transactions: { calls: 0, localUnits: 0, sizedUnits: 0 },
    failedConditions: { calls: 0, awsUnits: 0 },
    emptyQueries: { calls: 0, awsUnits: 0 },
  };
  for (const call of runs.flatMap((r) => r.ddb)) {
    if (call.basis === 'sized-transaction') {
      checks.transactions.calls++;
      checks.transactions.localUnits += call.localUnits ?? 0;
      checks.transactions.sizedUnits += call.sizedUnits ?? 0;
    } else if (call.basis === 'sized-failed-condition') {
      checks.failedConditions.calls++;
      checks.failedConditions.awsUnits += call.awsUnits;
    } else if (call.basis === 'minimum-read') {
      checks.emptyQueries.calls++;
      checks.emptyQueries.awsUnits += call.awsUnits;
    } else if (call.status === 200 && call.sizedUnits !== undefined && call.localUnits !== undefined) {
      if (call.kind === 'write') {
        checks.singleWrites.checked++;
        if (call.localUnits === call.sizedUnits) checks.singleWrites.agree++;
        else if (call.localUnits > call.sizedUnits) checks.singleWrites.localAbove++;
        else checks.singleWrites.localBelow++;
      } else if (call.kind === 'read') {
        checks.reads.checked++;
        if (call.localUnits === call.sizedUnits) checks.reads.agree++;
        else {
          checks.reads.differ++;
          const purpose = purposeOf(call);
          const row = checks.reads.differing.find((d) => d.purpose === purpose) ?? { purpose, calls: 0, localUnits: 0, sizedUnits: 0 };
          if (row.calls === 0) checks.reads.differing.push(row);
          row.calls++;
          row.localUnits += call.localUnits;
          row.sizedUnits += call.sizedUnits;
        }
      }
    }
  }
  return checks;
}

/** The probes' table and what the cost runs showed about DynamoDB Local's figures. */
export function renderLocalChecks(e: { calibration: CalibrationRow[]; checks: LocalChecks }): string[] {
  const { lines, out } = lineWriter();
  out('**DynamoDB Local against the AWS rules.** Probes on scratch items, through the same proxy, with the AWS figure worked out by hand:');
  out();
  out('| Probe | DynamoDB Local reported | AWS rules | Bench bills |');
  out('|---|---:|---:|---:|');
  for (const r of e.calibration) out(`| ${r.case} | ${r.local === null ? 'nothing' : num(r.local, 1)} | ${num(r.aws, 1)} | ${num(r.bench, 1)} |`);
  out();
  const ck = e.checks;
  const calOff = e.calibration.filter((r) => r.local !== r.aws);
  const checks: string[] = [];
  checks.push(
    `What DynamoDB Local reports matches the AWS rules for single-item and batch calls: it computes units from item sizes, counts index copies and halves eventually consistent reads. In the cost runs its figure for the engine's successful single-item writes equalled the size-based one (from the item read back on the side) in ${ck.singleWrites.agree} of ${ck.singleWrites.checked} calls${ck.singleWrites.localBelow + ck.singleWrites.localAbove ? ` (${ck.singleWrites.localBelow} below, ${ck.singleWrites.localAbove} above: the item changed between the write and the side read, or an update billed on a larger before-image)` : ''}, and for reads in ${ck.reads.agree} of ${ck.reads.checked}${ck.reads.differing.length ? ` (differing: ${ck.reads.differing.map((d) => `${d.purpose} ×${d.calls}, Local ${num(d.localUnits, 1)} against ${num(d.sizedUnits, 1)} RRU`).join('; ')})` : ''} (reads with a projection are not checked: they are billed on whole items, which their answers do not show); those calls are billed as Local reported them.`,
  );
  if (calOff.length)
    checks.push(
      `It differs from AWS in ${calOff.length} of the ${e.calibration.length} probes (${calOff.map((r) => r.case).join('; ')}), so for those kinds of call the bench bills the AWS figure instead:`,
    );
  checks.push(
    `a conditional write whose condition fails is billed on the existing item's size, at least 1 WRU (${ck.failedConditions.calls} such calls in the cost runs, ${num(ck.failedConditions.awsUnits, 0)} WRU); every TransactWriteItems is billed from item sizes, 2 × each item's units (largest of before and after image) with index copies at 2× as Local counts them${ck.transactions.calls ? ` (${ck.transactions.calls} transactions in the cost runs: Local reported ${num(ck.transactions.localUnits, 0)} WRU, the sizes give ${num(ck.transactions.sizedUnits, 0)})` : ' (the engine made no transactions in these runs)'}; a Query that reads nothing is billed at the 1 RRU minimum, 0.5 eventually consistent (${ck.emptyQueries.calls} in the cost runs; the minimum is this bench's reading of the AWS rules, which state it for reads of missing items).`,
  );
  out(checks.join(' '));
  out();
  return lines;
}
