import { HELLO, SDK_FLOOR } from '../support/baselines.js';
import type { BundleResult } from '../support/bundling.js';
import { budgetCount, fmtMs, fmtX, log, passFail } from '../support/format.js';
import { type LoadStats, measureLoadTimes, nodeModulesFootprint } from '../support/process-timing.js';
import type { BundleSizes } from './bundle-size.js';

/**
 * Section 2: whole-process cold-start time of every function, as a ratio
 * to the sdk-floor baseline measured in the same rounds. Context bundles
 * (first-use loads, the old client) are measured in the same rounds too.
 */

/** Whole-process median over sdk-floor's, same run. */
export const LOAD_RATIO_BUDGET = 1.4;

export interface LoadRow {
  bundle: BundleResult;
  load: LoadStats;
  /** Whole-process median over sdk-floor's: the budgeted figure. */
  vsFloor: number;
  /** Whole-process median over hello-world's: reported beside it. */
  vsHello: number;
  pass: boolean;
}

export interface LoadTimes {
  runs: number;
  functions: LoadRow[];
  hello: LoadRow;
  floor: LoadRow;
  /** Bundles measured for comparison only (first-use loads, the old client), by name. */
  context: Map<string, LoadRow>;
  failing: LoadRow[];
  /** Files (and their bytes on disk) that loading sdk-floor reads from node_modules: none when nothing is external. */
  floorFootprint: { files: number; bytes: number };
}

export function measureLoadTime(sizes: BundleSizes, context: BundleResult[], runs: number, work: string): LoadTimes {
  const measured = [...sizes.functions, sizes.hello, sizes.floor, ...context];
  log(`measuring whole-process load times: ${runs} rounds × ${measured.length} bundles in fresh node processes`);
  const loads = measureLoadTimes(measured, runs, work);
  const loadOf = (b: BundleResult) => loads.find((l) => l.name === b.name)!;
  const helloMs = loadOf(sizes.hello).process.median;
  const floorMs = loadOf(sizes.floor).process.median;
  const row = (b: BundleResult): LoadRow => {
    const load = loadOf(b);
    const vsFloor = load.process.median / floorMs;
    return { bundle: b, load, vsFloor, vsHello: load.process.median / helloMs, pass: vsFloor <= LOAD_RATIO_BUDGET };
  };
  const functions = sizes.functions.map(row);
  return {
    runs,
    functions,
    hello: row(sizes.hello),
    floor: row(sizes.floor),
    context: new Map(context.map((b) => [b.name, row(b)])),
    failing: functions.filter((r) => !r.pass),
    floorFootprint: nodeModulesFootprint(sizes.floor.outfile, work),
  };
}

export const names = (list: Array<{ bundle: BundleResult }>): string => list.map((r) => r.bundle.name).join(', ');

export function loadVerdict(a: LoadTimes): string {
  const n = a.functions.length;
  const rule = `whole-process median ≤ ${LOAD_RATIO_BUDGET}× ${SDK_FLOOR}`;
  const worstOf = (rows: LoadRow[]) => rows.reduce((w, r) => (r.vsFloor > w.vsFloor ? r : w));
  if (a.failing.length === 0) {
    const worst = worstOf(a.functions);
    return `All ${n} functions pass the load-time budget (${rule}); the slowest, ${worst.bundle.name}, is ${fmtX(worst.vsFloor)} ${SDK_FLOOR} (${fmtX(worst.vsHello)} ${HELLO}).`;
  }
  const worst = worstOf(a.failing);
  return `${a.failing.length} of ${n} functions FAIL the load-time budget (${rule}): ${names(a.failing)}; worst ${worst.bundle.name} at ${fmtX(worst.vsFloor)} ${SDK_FLOOR} (${fmtX(worst.vsHello)} ${HELLO}).`;
}

/** Functions whose budgeted ratio is within 5 % of the budget: another run may put them on the other side. */
export function borderline(a: LoadTimes): string | undefined {
  const near = a.functions.filter((r) => Math.abs(r.vsFloor - LOAD_RATIO_BUDGET) / LOAD_RATIO_BUDGET <= 0.05);
  if (!near.length) return undefined;
  return `Borderline: ${near.map((r) => `${r.bundle.name} (${fmtX(r.vsFloor)}, ${r.pass ? 'pass' : 'FAIL'})`).join(', ')} ${near.length === 1 ? 'is' : 'are'} within 5 % of the ${LOAD_RATIO_BUDGET}× budget, so another run may land on the other side; the mark is what this run measured.`;
}

export const loadTimeSummary = (a: LoadTimes): string =>
  `Load time: ${a.failing.length ? `**${loadVerdict(a)}**` : loadVerdict(a)} ${SDK_FLOOR} itself is ${fmtX(a.floor.vsHello)} ${HELLO}; see section 2.`;

/** One console row: process median, both ratios, import-only median, verdict. */
export const loadConsoleLine = (label: string, r: LoadRow, verdict: string): string =>
  `  ${label.padEnd(26)} ${`${fmtMs(r.load.process.median)} ms`.padStart(9)}  ${fmtX(r.vsFloor).padStart(10)}  ${fmtX(r.vsHello).padStart(6)}  ${`${fmtMs(r.load.importOnly.median)} ms`.padStart(9)}  ${verdict}`;

/** The console table's heading and the rows of the functions and baselines; context rows follow from their benchmarks. */
export function loadTimeConsoleLines(a: LoadTimes): string[] {
  return [
    `\nLoad time, whole process spawn → exit, median (budget ≤ ${LOAD_RATIO_BUDGET}× ${SDK_FLOOR} ${fmtMs(a.floor.load.process.median)} ms; ${HELLO} ${fmtMs(a.hello.load.process.median)} ms; ${SDK_FLOOR} = ${fmtX(a.floor.vsHello)} ${HELLO}):`,
    `  ${''.padEnd(26)} ${'process'.padStart(9)}  ${'×sdk-floor'.padStart(10)}  ${'×hello'.padStart(6)}  ${'import'.padStart(9)}`,
    ...a.functions.map((r) => loadConsoleLine(r.bundle.name, r, passFail(r.pass))),
    loadConsoleLine(SDK_FLOOR, a.floor, '(baseline)'),
    loadConsoleLine(HELLO, a.hello, '(baseline)'),
  ];
}

/** The verdict lines under the console table. */
export const loadVerdictLines = (a: LoadTimes): string[] => [`  ${loadVerdict(a)}`, ...[borderline(a)].filter((l) => l !== undefined).map((l) => `  ${l}`)];

export const loadTimeBudget = (a: LoadTimes): string => `  load time     ${budgetCount(a.failing.length, a.functions.length)}`;
