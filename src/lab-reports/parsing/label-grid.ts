/**
 * Pairs a line owes to the lines around it rather than to its own words: aligned label and value
 * columns (label-columns.ts), and rows of labels over values in a grid whose other rows show
 * them to be labels. Used by ./label-pairs.ts and ./metadata.ts.
 */
import { alignedLabelPairs } from './label-columns';
import { labelRow, rowPairs, type LineContext, type Pair } from './label-pairs';
import { BLOCK_GAP_LINES, COLUMN_ALIGN_LINES, type Line } from './layout';

/**
 * Rows of labels over rows of values in a grid (`Specimen / Location` over `25-BIO-688595 / Centre
 * de prélèvement`) where one label of the row is known and the others are labels no list holds:
 * a row alone needs two known labels (label-pairs.ts), as one may be a heading over anything.
 * Here the row's values start in the same columns as those of another row of the same grid that
 * has two, so it is a row of the same labels-over-values grid, and its known label is read.
 */
export function labelGridPairs(lines: Line[]): Map<Line, Pair[]> {
  const out = new Map<Line, Pair[]>();
  let grid: number[] = [];
  const flush = () => {
    readGrid(lines, grid, out);
    grid = [];
  };
  lines.forEach((line, i) => {
    const last = grid.length ? lines[grid[grid.length - 1]] : undefined;
    if (last && (line.page !== last.page || line.y <= last.y || line.y - last.y > last.height * BLOCK_GAP_LINES)) flush();
    grid.push(i);
  });
  flush();
  return out;
}

function readGrid(lines: Line[], grid: number[], out: Map<Line, Pair[]>): void {
  const rows = grid
    .filter((i) => grid.includes(i + 1))
    .map((i) => ({ line: lines[i], next: lines[i + 1], row: labelRow(lines[i], lines[i + 1]) }))
    .filter((r): r is { line: Line; next: Line; row: NonNullable<typeof r.row> } => r.row !== null);
  const known = (row: (typeof rows)[number]['row']) => row.filter((c) => c.field !== null).length;
  const sameColumns = (a: Line, b: Line) =>
    a.cells.length === b.cells.length && a.cells.every((cell, k) => Math.abs(cell.x0 - b.cells[k].x0) <= Math.max(a.height, b.height) * COLUMN_ALIGN_LINES);
  const read = rows.filter((r) => known(r.row) >= 2);
  for (const r of rows) {
    if (known(r.row) !== 1 || !read.some((other) => sameColumns(other.next, r.next))) continue;
    const pairs = rowPairs(r.row);
    if (pairs.length) out.set(r.line, pairs);
  }
}

/** What the lines' neighbours say of them (label-pairs.ts `pairsOf`). */
export function lineContext(lines: Line[]): LineContext {
  return { aligned: alignedLabelPairs(lines), gridRows: labelGridPairs(lines) };
}
