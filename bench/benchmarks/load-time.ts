import { HELLO, SDK_FLOOR } from '../support/baselines.js';
import type { BundleResult } from '../support/bundling.js';
import { budgetCount, fmtMs, fmtX, log, passFail } from '../support/format.js';
import { type LoadStats, type LoadTarget, measureLoadTimes, nodeModulesFootprint } from '../support/process-timing.js';
import type { BundleSizes } from './bundle-size.js';

/**
 * Section 2: whole-process cold-start time of every function, as a ratio
 * to the sdk-floor baseline measured in the same rounds. Context bundles
 * (first-use loads, the old client) are measured in the same rounds too.
 */

/** Whole-process median over sdk-floor's, same run. */
export const LOAD_RATIO_BUDGET = 1.4;

export type { LoadTarget };

export interface LoadRow<B extends LoadTarget = BundleResult> {
  bundle: B;
  /** The file loaded: the bundle's own, or a byte-identical copy of it (its asset in the cloud assembly, section 9). */
  file: string;
  load: LoadStats;
  /** Whole-process median over sdk-floor's: the budgeted figure. */
  vsFloor: number;
  /** Whole-process median over hello-world's: reported beside it. */
  vsHello: number;
  pass: boolean;
}

/** One set of load rounds: both baselines' rows and the row of any bundle measured in them. */
export interface LoadRounds {
  runs: number;
  hello: LoadRow;
  floor: LoadRow;
  /** The row of a bundle measured in these rounds, found by name; throws for one that was not. */
  rowOf: <B extends LoadTarget>(b: B) => LoadRow<B>;
}

export interface LoadTimes extends LoadRounds {
  functions: LoadRow[];
  /** Bundles measured for comparison only (first-use loads, the old client), by name. */
  context: Map<string, LoadRow>;
  failing: LoadRow[];
  /** Files (and their bytes on disk) that loading sdk-floor reads from node_modules: none when nothing is external. */
  floorFootprint: { files: number; bytes: number };
}

/**
 * `runs` shuffled rounds in which every bundle and both baselines are loaded
 * once each (bench/support/process-timing.ts), so every ratio is against the
 * baselines of the same rounds. Whatever is timed this way, the bench's own
 * bundles or the cloud assembly's, is timed by this one machinery.
 */
export function measureLoadRounds(bundles: LoadTarget[], baselines: { hello: BundleResult; floor: BundleResult }, runs: number, work: string): LoadRounds {
  const measured = [...bundles, baselines.hello, baselines.floor];
  log(`measuring whole-process load times: ${runs} rounds × ${measured.length} bundles in fresh node processes`);
  const loads = measureLoadTimes(measured, runs, work);
  const statsOf = (name: string) => {
    const found = loads.find((l) => l.name === name);
    if (!found) throw new Error(`${name} was not measured in these load rounds`);
    return found;
  };
  const fileOf = (name: string) => measured.find((m) => m.name === name)!.outfile;
  const helloMs = statsOf(baselines.hello.name).process.median;
  const floorMs = statsOf(baselines.floor.name).process.median;
  const rowOf = <B extends LoadTarget>(b: B): LoadRow<B> => {
    const load = statsOf(b.name);
    const vsFloor = load.process.median / floorMs;
    return { bundle: b, file: fileOf(b.name), load, vsFloor, vsHello: load.process.median / helloMs, pass: vsFloor <= LOAD_RATIO_BUDGET };
  };
  return { runs, hello: rowOf(baselines.hello), floor: rowOf(baselines.floor), rowOf };
}

/**
 * Section 2's rounds: every function, both baselines, the context bundles,
 * and `extra` bundles (section 9's deployed bundles that differ from the
 * bench's). `loadFrom` names, per function, a byte-identical copy to load
 * instead of the bench's file (its asset in the cloud assembly), so one
 * series serves both sections.
 */
export function measureLoadTime(
  sizes: BundleSizes,
  context: BundleResult[],
  runs: number,
  work: string,
  options: { loadFrom?: ReadonlyMap<string, string>; extra?: LoadTarget[] } = {},
): LoadTimes {
  const fromCopy = (b: BundleResult): LoadTarget => ({ name: b.name, outfile: options.loadFrom?.get(b.name) ?? b.outfile });
  const rounds = measureLoadRounds([...sizes.functions.map(fromCopy), ...context, ...(options.extra ?? [])], sizes, runs, work);
  const functions = sizes.functions.map((b) => rounds.rowOf(b));
  return {
    ...rounds,
    functions,
    context: new Map(context.map((b) => [b.name, rounds.rowOf(b)])),
    failing: functions.filter((r) => !r.pass),
    floorFootprint: nodeModulesFootprint(sizes.floor.outfile, work),
  };
}

export const names = (list: Array<{ bundle: LoadTarget }>): string => list.map((r) => r.bundle.name).join(', ');

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
export const loadConsoleLine = (label: string, r: LoadRow<LoadTarget>, verdict: string): string =>
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
