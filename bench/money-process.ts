/**
 * The money and webhooks benchmarks' process (`node --import tsx
 * bench/money-process.ts --out <file> --samples N --sections money,webhooks`,
 * spawned by bench/benchmarks/money.ts): one local stack with counting
 * proxies in front of DynamoDB Local and the SQS emulator (the engine's,
 * bench/support/engine-stack.ts), the 10-node chain's version made and
 * warmed, then section 7 (money) and section 8 (webhooks) on it; the
 * results are written as JSON to `--out`. A process of its own for the
 * reason bench/engine-process.ts is one.
 */
import type { MoneyProcessResults, MoneySection } from './benchmarks/money.js';
import { measureMetering } from './benchmarks/money-metering.js';
import { measureTransactions } from './benchmarks/money-transactions.js';
import { measureWebhooks } from './benchmarks/webhooks.js';
import { arg, guardProcess, reportResults } from './support/bench-process.js';
import { startEngineStack } from './support/engine-stack.js';
import { Running } from './support/local-stack.js';
import { dynamodbLocalVersion, installedVersion } from './support/repo.js';
import { observeRun } from './support/workflow-run.js';
import { createVersion, shapes } from './support/workflow-shapes.js';

const running = new Running();

async function measure(sections: readonly MoneySection[], samples: number): Promise<MoneyProcessResults> {
  const t0 = performance.now();
  // Webhook deliveries go to a receiver on 127.0.0.1 over http; the outbound guard reads these on every call.
  process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
  process.env.OUTBOUND_ALLOW_INSECURE = 'true';
  try {
    const b = await startEngineStack(running);
    const chain = shapes().find((s) => s.shape === 'chain')!;
    await createVersion(b.api, chain);
    await observeRun(b, chain);
    const results: MoneyProcessResults = {
      seconds: 0,
      versions: { dynamodbLocal: dynamodbLocalVersion(), fauxqs: installedVersion('fauxqs') ?? 'unknown' },
      workerErrors: [],
    };
    if (sections.includes('money')) {
      const metering = await measureMetering(b, chain, Math.max(5, Math.round(samples / 4)), samples);
      const transactions = await measureTransactions(b, samples);
      results.money = { metering, transactions };
    }
    if (sections.includes('webhooks')) results.webhooks = await measureWebhooks(b, chain, samples, running);
    results.seconds = (performance.now() - t0) / 1000;
    results.workerErrors = [...new Set(b.workerErrors)].slice(0, 5);
    return results;
  } finally {
    await running.stopAll();
  }
}

guardProcess('money', running, 240_000);
const sections = (arg('--sections') ?? 'money,webhooks').split(',') as MoneySection[];
reportResults('money', measure(sections, Number(arg('--samples') ?? 20)));
