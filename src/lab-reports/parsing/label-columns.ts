import { BLOCK_GAP_LINES, COLUMN_ALIGN_LINES, type Line } from './layout';
import { labelField, type Field } from './labels';

/**
 * Bare labels in a column of their own with their values aligned in the next (`Sex      female`,
 * no colon, no border): a column is where two lines or more of a block print a known label at
 * the same x with a value starting at the same x after it. Every line of the block is then read
 * by those columns, its words split at the value column's x — so a label set so close to its
 * value that both fall in one cell still parts from it — and a label no list knows only ends the
 * value before it.
 */
export interface ColumnPair {
  field: Field;
  value: string;
}

interface Piece {
  text: string;
  x0: number;
  /** The index of its cell in the line. */
  cell: number;
}

/** A line's words with their left edges (a cell without words — a test's — as one piece). */
function pieces(line: Line): Piece[] {
  return line.cells.flatMap((cell, i) =>
    cell.words.length ? cell.words.map((w) => ({ text: w.text, x0: w.x, cell: i })) : [{ text: cell.text, x0: cell.x0, cell: i }],
  );
}

export function alignedLabelPairs(lines: Line[]): Map<Line, ColumnPair[]> {
  const out = new Map<Line, ColumnPair[]>();
  let block: Line[] = [];
  const flush = () => {
    if (block.length >= 2) readBlock(block, out);
    block = [];
  };
  for (const line of lines) {
    const last = block[block.length - 1];
    if (last && (line.page !== last.page || line.y - last.y > last.height * BLOCK_GAP_LINES)) flush();
    block.push(line);
  }
  flush();
  return out;
}

function readBlock(block: Line[], out: Map<Line, ColumnPair[]>): void {
  const tolerance = Math.max(...block.map((l) => l.height)) * COLUMN_ALIGN_LINES;
  const near = (a: number, b: number) => Math.abs(a - b) <= tolerance;
  // Known labels (no colon: those read as `Label: value`) with a value cell after them.
  const seen: { x: number; valueX: number }[] = [];
  for (const line of block) {
    line.cells.forEach((cell, i) => {
      const next = line.cells[i + 1];
      if (cell.text.includes(':') || !next || labelField(cell.text) === null || labelField(next.text) !== null) return;
      seen.push({ x: cell.x0, valueX: next.x0 });
    });
  }
  const columns: { x: number; valueX: number }[] = [];
  for (const s of seen) {
    if (columns.some((c) => near(c.x, s.x))) continue;
    if (seen.filter((t) => near(t.x, s.x) && near(t.valueX, s.valueX)).length >= 2) columns.push(s);
  }
  if (!columns.length) return;
  columns.sort((a, b) => a.x - b.x);
  for (const line of block) {
    const words = pieces(line);
    const pairs: ColumnPair[] = [];
    columns.forEach((column, k) => {
      const end = columns[k + 1]?.x ?? Infinity;
      const label = words.filter((w) => w.x0 >= column.x - tolerance && w.x0 < column.valueX - tolerance);
      // The value ends with its cell (a wide gap) or at the next label column.
      const inColumn = words.filter((w) => w.x0 >= column.valueX - tolerance && w.x0 < end - tolerance);
      const value = inColumn.filter((w) => w.cell === inColumn[0]?.cell);
      if (!label.length || !value.length || !near(label[0].x0, column.x)) return;
      const labelText = label.map((w) => w.text).join(' ');
      const valueText = value.map((w) => w.text).join(' ');
      const field = labelText.includes(':') ? null : labelField(labelText);
      if (field === null || field === 'other' || labelField(valueText) !== null) return;
      pairs.push({ field, value: valueText.trim() });
    });
    if (pairs.length) out.set(line, pairs);
  }
}
