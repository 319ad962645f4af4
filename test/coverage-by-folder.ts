import { relative, sep } from 'node:path';
import type { Reporter } from 'vitest/reporters';

/** The parts of istanbul's CoverageMap / FileCoverage summary this reporter reads. */
interface Totals {
  total: number;
  covered: number;
}
interface FileSummary {
  statements: Totals;
  branches: Totals;
  functions: Totals;
  lines: Totals;
}
interface CoverageMapLike {
  files(): string[];
  fileCoverageFor(file: string): { toSummary(): FileSummary };
}

const METRICS = ['statements', 'branches', 'functions', 'lines'] as const;
type Row = { folder: string; files: number } & Record<(typeof METRICS)[number], Totals>;

/** lib/execution/nodes/http.ts → lib/execution; lib/x.ts → lib (top level). */
export function folderOf(file: string, root: string): string {
  const parts = relative(root, file).split(sep);
  if (parts.length <= 2) return `${parts[0]} (top level)`;
  return `${parts[0]}/${parts[1]}`;
}

const percent = ({ total, covered }: Totals) => (total === 0 ? '-' : `${((covered / total) * 100).toFixed(1)}%`);

export function coverageTable(map: CoverageMapLike, root: string): string {
  const rows = new Map<string, Row>();
  const empty = (folder: string): Row => ({
    folder,
    files: 0,
    statements: { total: 0, covered: 0 },
    branches: { total: 0, covered: 0 },
    functions: { total: 0, covered: 0 },
    lines: { total: 0, covered: 0 },
  });
  const total = empty('all files');
  for (const file of map.files()) {
    const folder = folderOf(file, root);
    const row = rows.get(folder) ?? empty(folder);
    rows.set(folder, row);
    const summary = map.fileCoverageFor(file).toSummary();
    for (const target of [row, total]) {
      target.files++;
      for (const metric of METRICS) {
        target[metric].total += summary[metric].total;
        target[metric].covered += summary[metric].covered;
      }
    }
  }
  const header = ['Coverage by folder', 'Files', '% Stmts', '% Branch', '% Funcs', '% Lines'];
  const cells = [...[...rows.values()].sort((a, b) => a.folder.localeCompare(b.folder)), total].map((r) => [
    r.folder,
    String(r.files),
    ...METRICS.map((m) => percent(r[m])),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join(' | ');
  const rule = widths.map((w) => '-'.repeat(w)).join('-|-');
  return [line(header), rule, ...cells.slice(0, -1).map(line), rule, line(cells.at(-1)!)].join('\n');
}

/**
 * Prints one coverage row per folder of lib/ (instead of the text reporter's
 * row per file) when the run collects coverage (`vitest run --coverage`).
 * Printed as soon as coverage is ready, so the run's test summary still
 * closes the output.
 */
export class CoverageByFolderReporter implements Reporter {
  private root = process.cwd();

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
  }

  onCoverage(coverage: unknown): void {
    const map = coverage as CoverageMapLike | undefined;
    if (!map || typeof map.files !== 'function' || map.files().length === 0) return;
    process.stdout.write(`\n${coverageTable(map, this.root)}\n`);
  }
}
