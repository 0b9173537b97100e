/**
 * `npm run bench`: every benchmark, one after the other (each alone on the machine, as far as
 * this command goes), then BENCHMARKS.md: the machine, each figure beside its baseline from the
 * same run with the ratio and its goal, and a chart per benchmark (bench/charts/<bench>.png:
 * ratio bars against the goal line). Benches report their figures through bench/lib/results.ts.
 *
 *   npm run bench [-- reads orders …]   (default: all; settings from the environment as each
 *                                        bench takes them, e.g. set -a; . .labflow/test.env;
 *                                        benches not named keep their sections, marked with
 *                                        the date of the run that measured them)
 */
import { createCanvas } from '@napi-rs/canvas';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, ROOT } from './lib/load';
import type { Figure } from './lib/results';

/** Each bench and the npm script that runs it; webhooks first (its queue must be quiet). */
const BENCHES = ['webhooks', 'orders', 'reads', 'framework', 'observability', 'rate-limits', 'health-data', 'lab-reports', 'open-workflows', 'hl7', 'fhir'];

interface BenchRun {
  bench: string;
  seconds: number;
  /** How the machine was when the bench began (waitForQuiet). */
  quiet: Quiet;
  exitCode: number | null;
  figures: Figure[];
  output: string;
}

/** The share of the machine's CPU time that was idle over `ms` (/proc/stat). */
function idleShare(ms: number): number {
  const read = () => {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are the idle time.
    return { idle: fields[3] + fields[4], total: fields.slice(0, 8).reduce((sum, n) => sum + n, 0) };
  };
  const before = read();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  const after = read();
  return (after.idle - before.idle) / Math.max(1, after.total - before.total);
}

interface Quiet {
  waitedSeconds: number;
  idle: number;
}

/** Idle share of the CPUs a bench waits for (the Temporal dev server alone keeps ~8% of a 2-core machine busy). */
const QUIET_IDLE = 0.85;
const QUIET_MAX_MS = 180_000;

/**
 * Waits until the machine is quiet (QUIET_IDLE over 5 s), at most QUIET_MAX_MS: what a bench
 * leaves behind (Postgres vacuuming the rows it wrote, the Temporal dev server's timers and
 * deletions) otherwise runs into the next one. Session 44's full run measured the page of users'
 * p99 at 3.46x its floor right after bench:orders, and 1.30x with the machine quiet.
 */
function waitForQuiet(): Quiet {
  const started = Date.now();
  let idle = idleShare(5_000);
  while (idle < QUIET_IDLE && Date.now() - started < QUIET_MAX_MS) idle = idleShare(5_000);
  return { waitedSeconds: (Date.now() - started) / 1000, idle };
}

function runBench(bench: string, resultsDir: string): BenchRun {
  const quiet = waitForQuiet();
  console.log(`[bench] the machine ${Math.round(quiet.idle * 100)}% idle after ${fmt(quiet.waitedSeconds)} s`);
  const results = join(resultsDir, `${bench}.jsonl`);
  writeFileSync(results, '');
  const started = Date.now();
  console.log(`[bench] ${bench} …`);
  const run = spawnSync('npm', ['run', '--silent', `bench:${bench}`], {
    cwd: ROOT,
    env: { ...process.env, BENCH_RESULTS: results },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  process.stdout.write(output);
  const figures = readFileSync(results, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Figure);
  return { bench, seconds: (Date.now() - started) / 1000, quiet, exitCode: run.status, figures, output };
}

const ratioOf = (figure: Figure) => (figure.baseline === 0 ? 0 : figure.value / figure.baseline);
const meets = (figure: Figure) =>
  figure.goal === undefined ? null : figure.goal.atLeast ? ratioOf(figure) >= figure.goal.ratio : ratioOf(figure) <= figure.goal.ratio;

/** Horizontal bars of value ÷ baseline per figure, with each goal as a red tick. */
function chart(run: BenchRun, file: string): void {
  const rowHeight = 34;
  const labelWidth = 430;
  const barWidth = 420;
  const width = labelWidth + barWidth + 90;
  const height = 60 + rowHeight * run.figures.length;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = '#111111';
  ctx.font = 'bold 16px sans-serif';
  ctx.fillText(`bench:${run.bench}: value ÷ baseline (same run); red tick = goal`, 12, 24);
  const max = Math.max(1.1, ...run.figures.map((f) => ratioOf(f)), ...run.figures.map((f) => f.goal?.ratio ?? 0)) * 1.05;
  const x = (ratio: number) => labelWidth + (Math.min(ratio, max) / max) * barWidth;
  // The 1.0 line: as good as the baseline.
  ctx.strokeStyle = '#999999';
  ctx.beginPath();
  ctx.moveTo(x(1), 40);
  ctx.lineTo(x(1), height - 10);
  ctx.stroke();
  run.figures.forEach((figure, index) => {
    const y = 44 + index * rowHeight;
    const ok = meets(figure);
    ctx.fillStyle = '#111111';
    ctx.font = '13px sans-serif';
    const label = figure.name.length > 60 ? `${figure.name.slice(0, 59)}…` : figure.name;
    ctx.fillText(label, 12, y + 17);
    ctx.fillStyle = ok === null ? '#6b7fa8' : ok ? '#2e8b57' : '#d08020';
    ctx.fillRect(labelWidth, y + 4, Math.max(2, x(ratioOf(figure)) - labelWidth), rowHeight - 12);
    ctx.fillStyle = '#111111';
    // After the bar, or after the goal tick when the bar stops short of it.
    ctx.fillText(fmt(ratioOf(figure), 2), Math.max(x(ratioOf(figure)), figure.goal ? x(figure.goal.ratio) : 0) + 6, y + 17);
    if (figure.goal) {
      ctx.strokeStyle = '#cc0000';
      ctx.lineWidth = 3;
      ctx.beginPath();
      ctx.moveTo(x(figure.goal.ratio), y);
      ctx.lineTo(x(figure.goal.ratio), y + rowHeight - 4);
      ctx.stroke();
      ctx.lineWidth = 1;
    }
  });
  writeFileSync(file, canvas.toBuffer('image/png'));
}

function machine(): string {
  const cpu = cpus();
  const node = process.version;
  return [
    `- ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${fmt(totalmem() / 2 ** 30, 1)} GiB memory, Node ${node}, ${process.platform}/${process.arch}`,
    `- load average when the run began: ${loadavg()
      .map((n) => fmt(n, 1))
      .join(' ')} (other work on the machine widens the spread; each ratio's two sides were measured alternately in the same run)`,
  ].join('\n');
}

function markdown(runs: BenchRun[], startedAt: Date, load: string, previous: ReadonlyMap<string, string>): string {
  const lines = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` (bench/run-all.ts) on ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC. Every figure stands beside a baseline measured in the same run on the same machine, so the ratios compare across machines; absolute figures do not.`,
    '',
    '## Machine',
    '',
    load,
    '',
  ];
  const skipped = BENCHES.filter((bench) => !runs.some((run) => run.bench === bench));
  if (skipped.length) {
    lines.push(
      `Not run this time (\`npm run bench -- <names>\` chose the others): ${skipped.map((bench) => `bench:${bench}`).join(', ')}; their sections are kept from the run that last measured them, as marked.`,
      '',
    );
  }
  for (const bench of BENCHES) {
    const run = runs.find((candidate) => candidate.bench === bench);
    if (!run) {
      const kept = previous.get(bench);
      if (kept) lines.push(kept, '');
      continue;
    }
    lines.push(`## bench:${run.bench}`, '');
    if (run.exitCode !== 0) lines.push(`**The bench failed (exit code ${run.exitCode}); its figures below may be partial.**`, '');
    if (run.figures.length === 0) {
      lines.push('No figures recorded.', '');
      continue;
    }
    lines.push(`![bench:${run.bench}](bench/charts/${run.bench}.png)`, '');
    lines.push('| figure | value | baseline | ratio | goal | met |', '|---|---:|---:|---:|---:|:---:|');
    for (const figure of run.figures) {
      const digits = figure.unit === 'fraction' ? 3 : figure.value < 10 ? 2 : 0;
      const goal = figure.goal ? `${figure.goal.atLeast ? '≥' : '≤'} ${figure.goal.ratio}` : '';
      const ok = meets(figure);
      lines.push(
        `| ${figure.name} | ${fmt(figure.value, digits)} ${figure.unit} | ${fmt(figure.baseline, digits)} (${figure.baselineName}) | ${fmt(ratioOf(figure), 2)} | ${goal} | ${ok === null ? '' : ok ? 'yes' : 'no'} |`,
      );
    }
    lines.push(
      '',
      `(${fmt(run.seconds)} s; begun with the machine ${Math.round(run.quiet.idle * 100)}% idle, after waiting ${fmt(run.quiet.waitedSeconds)} s for it)`,
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The sections of an earlier BENCHMARKS.md by bench, each marked with the date of the run that
 * measured it (a section kept before keeps its mark), so a partial run keeps what it did not redo.
 */
function previousSections(file: string): Map<string, string> {
  const sections = new Map<string, string>();
  if (!existsSync(file)) return sections;
  const text = readFileSync(file, 'utf8');
  const written = /on (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) UTC/.exec(text)?.[1] ?? 'an earlier run';
  const machineThen = /^- (\d+ × [^,\n]+)/m.exec(text)?.[1];
  for (const part of text.split(/^(?=## bench:)/m).slice(1)) {
    const bench = /^## bench:(\S+)/.exec(part)?.[1];
    if (!bench) continue;
    const body = part.trimEnd();
    const marked = body.includes('*Kept from the run of ');
    sections.set(
      bench,
      marked ? body : body.replace(/\n/, `\n\n*Kept from the run of ${written} UTC${machineThen ? ` (on ${machineThen})` : ''}: not run this time.*\n`),
    );
  }
  return sections;
}

function main(): void {
  const wanted = process.argv.slice(2);
  // A misspelt name would otherwise run nothing and still rewrite the header as a new run.
  const unknown = wanted.filter((name) => !BENCHES.includes(name));
  if (unknown.length) throw new Error(`No bench named ${unknown.join(', ')}; the benches are: ${BENCHES.join(', ')}`);
  const benches = wanted.length ? BENCHES.filter((bench) => wanted.includes(bench)) : BENCHES;
  // The benches start dist/ as production does: its workflow bundles included (a production worker
  // will not bundle at start), which `scripts/stack.sh test` does not build. Before the load
  // average is read, so the build's CPU is not taken for other work's.
  console.log('[bench] npm run build …');
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build failed (exit code ${build.status}): the benches need dist/`);
  const startedAt = new Date();
  const load = machine();
  const resultsDir = mkdtempSync(join(tmpdir(), 'labflow-bench-'));
  const chartsDir = join(ROOT, 'bench', 'charts');
  mkdirSync(chartsDir, { recursive: true });
  try {
    const runs = benches.map((bench) => runBench(bench, resultsDir));
    for (const run of runs) if (run.figures.length) chart(run, join(chartsDir, `${run.bench}.png`));
    const file = join(ROOT, 'BENCHMARKS.md');
    writeFileSync(file, markdown(runs, startedAt, load, previousSections(file)));
    console.log(`[bench] wrote BENCHMARKS.md and bench/charts/*.png (${runs.filter((run) => run.exitCode !== 0).length} benches failed)`);
    if (runs.some((run) => run.exitCode !== 0)) process.exitCode = 1;
  } finally {
    rmSync(resultsDir, { recursive: true, force: true });
  }
}

main();
