/**
 * Blocks about someone other than the patient (a child's parent or guardian, a guarantor, next of
 * kin), which print a `Name:` and a phone as the patient's block does: taken out before the
 * metadata is read. Used by ./metadata.ts.
 */
import { metadataCellKind } from './label-pairs';
import { aboutAnotherPerson, labelField } from './labels';
import { BLOCK_GAP_LINES, COLUMN_ALIGN_LINES, lineFromCells, type Cell, type Line } from './layout';

/** Words of a heading over someone other than the patient besides those of OTHER_PERSON_WORDS (`NEXT OF KIN`, `RESPONSIBLE PARTY`). */
const OTHER_PERSON_HEADING = /^(party|next|of|name|names|phone|details|information|info|contact|contacts|and|&)$/;

/** A heading over a block about someone other than the patient (`PARENT / GUARDIAN`, `RESPONSIBLE PARTY`, `Next of kin`). */
function otherPersonHeading(text: string): boolean {
  const words = text
    .toLowerCase()
    .replace(/:\s*$/, '')
    .split(/[\s/]+/)
    .filter(Boolean);
  if (!words.length || words.length > 5 || text.replace(/:\s*$/, '').includes(':') || /\d/.test(text)) return false;
  return aboutAnotherPerson(words, OTHER_PERSON_HEADING);
}

/**
 * The lines with the blocks about someone other than the patient taken out: under a heading such as
 * `PARENT / GUARDIAN`, the cells in its column on the lines that follow it, each within a block's
 * gap of the one before, up to the next heading or the first line without a cell there. A child's
 * report prints the guardian's `Name:` and phone like the patient's, beside or below them.
 */
export function withoutOtherPeoplesBlocks(lines: Line[]): Line[] {
  const dropped = new Set<Cell>();
  lines.forEach((line, i) => {
    for (const heading of line.cells) {
      if (!otherPersonHeading(heading.text)) continue;
      const tolerance = line.height * COLUMN_ALIGN_LINES;
      let [last, lastCell] = [line, heading];
      for (const next of lines.slice(i + 1)) {
        if (next.page !== last.page || next.y <= last.y || next.y - last.y > last.height * BLOCK_GAP_LINES) break;
        const cell = next.cells.find((c) => Math.abs(c.x0 - heading.x0) <= tolerance);
        // A heading is over labels (a bare label over its value is none); the next heading
        // (`ORDER / SPECIMEN`) or the patient's own label ends the block; a value under a bare label does not.
        if (!cell || (last === line && metadataCellKind(cell.text) === null) || /^\s*(patient|pt)\b/i.test(cell.text)) break;
        if (headingCell(cell.text) && labelField(lastCell.text) === null) break;
        dropped.add(cell);
        [last, lastCell] = [next, cell];
      }
    }
  });
  if (!dropped.size) return lines;
  return lines.flatMap((line) => {
    if (!line.cells.some((c) => dropped.has(c))) return [line];
    const kept = line.cells.filter((c) => !dropped.has(c));
    return kept.length ? [lineFromCells(kept, line)] : [];
  });
}

/** A cell printed as a block's heading: words in capitals, no colon, no digits. */
function headingCell(text: string): boolean {
  const t = text.trim();
  return /\p{Lu}{3}/u.test(t) && t === t.toUpperCase() && !t.includes(':') && !/\d/.test(t);
}
