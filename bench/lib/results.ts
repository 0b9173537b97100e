/**
 * Figures a benchmark reports to `npm run bench` (bench/run-all.ts): with BENCH_RESULTS set to a
 * file, each figure is appended to it as one JSON line; without it nothing is written (a bench
 * run alone only prints).
 */
import { appendFileSync } from 'node:fs';

export interface Figure {
  /** The bench (`reads`, `orders`, …). */
  bench: string;
  /** What was measured, e.g. `GET /v2/user/{id} req/s`. */
  name: string;
  value: number;
  /** The same quantity measured in the same run on the floor it is compared with. */
  baseline: number;
  /** What the baseline is, e.g. `bare Fastify + pg`. */
  baselineName: string;
  unit: string;
  /** The goal for value ÷ baseline, and whether the ratio must be at least (≥) or at most (≤) it. */
  goal?: { ratio: number; atLeast: boolean };
}

export function recordFigure(figure: Figure): void {
  const file = process.env.BENCH_RESULTS;
  if (file) appendFileSync(file, `${JSON.stringify(figure)}\n`);
}
