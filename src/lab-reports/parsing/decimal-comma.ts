import type { Line } from './layout';

/**
 * Reports that print decimal commas (`4,2 mmol/L`, `3,5 - 5,3`: French, German, Scandinavian and
 * Latin American labs, and a Québec hospital's bilingual report on some days): their numbers read
 * with decimal points, so that the rest of the parser (values.ts) reads them as every other report's.
 */

/**
 * A word that is a number with a decimal comma (`4,2`, `<3,0`, `0,67`, `12,1H`): one or two digits
 * after it, so never a thousands group; or a zero before it (`0,657`), as no number's thousands
 * group follows a lone zero.
 */
const COMMA_NUMBER = /^[<>≤≥]?(?:\d+,\d{1,2}|0,\d+)(?:[A-Za-z%*]{0,2})$/;
/** A word that is a number with a decimal point (`4.2`, `<3.0`). */
const POINT_NUMBER = /^[<>≤≥]?\d+\.\d+(?:[A-Za-z%*]{0,2})$/;
/** A comma between digits: on a report that prints decimal commas, a decimal comma (`0,482`, `1,018`), as its thousands, if any, are parted by spaces or points. */
const DECIMAL_COMMA = /(\d),(\d)/g;

/**
 * Whether the report's numbers print decimal commas: at least three of its words are numbers with
 * one, and more of them than numbers with a decimal point (the bounds of an interval printed as one
 * word, `(5,0-8,0)`, counted too). One convention per report: a US report's
 * `1,250` (three digits after the comma) is never counted, and a stray `1,2` among decimal points is outvoted.
 */
export function printsDecimalCommas(lines: Line[]): boolean {
  let commas = 0;
  let points = 0;
  for (const line of lines) {
    for (const cell of line.cells) {
      for (const word of cell.words) {
        for (const number of numbersIn(word.text)) {
          if (COMMA_NUMBER.test(number)) commas += 1;
          else if (POINT_NUMBER.test(number)) points += 1;
        }
      }
    }
  }
  return commas >= 3 && commas > points;
}

/**
 * The numbers a word prints: itself, or, for an interval printed as one word (`(5,0-8,0)`,
 * `[3.5-5.1]`), its two bounds without the brackets around them.
 */
function numbersIn(word: string): string[] {
  const bare = word.replace(/^[([]|[)\]]$/g, '');
  const interval = /^(\d[\d.,]*)[-–](\d[\d.,]*)$/.exec(bare);
  return interval ? [interval[1], interval[2]] : [bare];
}

/** `line` with its decimal commas read as decimal points, in its words, cells and text alike. */
export function withDecimalPoints(line: Line): Line {
  const point = (text: string) => text.replace(DECIMAL_COMMA, '$1.$2');
  return {
    ...line,
    text: point(line.text),
    cells: line.cells.map((cell) => ({ ...cell, text: point(cell.text), words: cell.words.map((word) => ({ ...word, text: point(word.text) })) })),
  };
}
