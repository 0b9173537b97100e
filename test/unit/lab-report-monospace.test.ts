import { pageLines } from '../../src/lab-reports/parsing/layout';
import { monospacePitches } from '../../src/lab-reports/parsing/monospace';
import type { ExtractedWord } from '../../src/lab-reports/parsing/types';

/**
 * OCR's word boxes for a line printed in Courier with a character pitch of `pitch` px from `x`:
 * every glyph in a cell of its own, the ink inset from the cell's edges (more after a narrow
 * glyph), and a word split after a narrow glyph where `|` marks it (`Col|or`, `Non-|Reactive`:
 * what OCR makes of a Courier scan). Cells of a table start where the report placed them (`cells`
 * are [x, text] pairs), not on one grid across the line.
 */
function courierLine(cells: [number, string][], y: number, pitch: number): ExtractedWord[] {
  const words: ExtractedWord[] = [];
  for (const [x0, text] of cells) {
    let cell = 0;
    for (const word of text.split(' ')) {
      for (const piece of word.split('|')) {
        const narrow = /[ilIjtf1.,:;'\-|!]$/.test(piece);
        const x = x0 + cell * pitch + Math.round(pitch * 0.08);
        const w = Math.round(piece.length * pitch - pitch * (narrow ? 0.45 : 0.16));
        words.push({ text: piece, x, y, w, h: Math.round(pitch * 1.25), confidence: 0.9 });
        cell += piece.length;
      }
      cell += 1;
    }
  }
  return words;
}

/** Helvetica's advance widths (thousandths of the size), for a proportional line. */
const HELVETICA: Record<string, number> = {
  ...Object.fromEntries([...'abdeghnopqu0123456789'].map((c) => [c, 556])),
  ...Object.fromEntries([...'cksvxyz'].map((c) => [c, 500])),
  ...Object.fromEntries([...'ijl'].map((c) => [c, 222])),
  ...Object.fromEntries([...'ft ,.:/'].map((c) => [c, 278])),
  r: 333,
  m: 833,
  w: 722,
  '-': 333,
};

/** OCR's word boxes for a line printed in Helvetica at `size` px from `x`. */
function helveticaLine(text: string, x: number, y: number, size: number): ExtractedWord[] {
  const advance = (s: string) => [...s].reduce((sum, c) => sum + ((HELVETICA[c] ?? (/[A-Z]/.test(c) ? 667 : 556)) * size) / 1000, 0);
  const words: ExtractedWord[] = [];
  let at = x;
  for (const word of text.split(' ')) {
    words.push({ text: word, x: Math.round(at + size * 0.04), y, w: Math.round(advance(word) - size * 0.08), h: Math.round(size * 0.75), confidence: 0.9 });
    at += advance(`${word} `);
  }
  return words;
}

/** A faxed report set in Courier in three sizes: the fax header, the address lines and the body. */
function faxedPage(): ExtractedWord[] {
  return [
    ...courierLine([[150, 'Received 2025-08-09 5:02 PM From 3085550142 To: Frontier Community Health Center; Page 1 of 1']], 60, 17),
    ...courierLine([[150, 'Laboratory Outreach Services - 1200 Prairie View Rd, Ogallala NE 69153']], 260, 18.5),
    ...courierLine([[150, 'CLIA 38D9296628 - Medical Director: P. Engstrom, MD']], 300, 18.5),
    ...reportBody(),
  ];
}

/** The patient block and results of that report, in Courier at a pitch of 21 px. */
function reportBody(): ExtractedWord[] {
  const body = 21;
  return [
    ...courierLine(
      [
        [165, 'PATI|ENT NAME: KUCERA, JAMES'],
        [1650, 'DATE OF BIRTH: 05/10/2001'],
      ],
      730,
      body,
    ),
    ...courierLine(
      [
        [165, 'ORDERED BY: Whitehorse, Dana DO'],
        [1650, 'COLL DATE: 08/07/2025 7:43 AM'],
      ],
      790,
      body,
    ),
    ...courierLine(
      [
        [165, 'TEST'],
        [900, 'RESULT'],
        [1270, 'UNITS'],
        [1690, 'REFERENCE'],
      ],
      1140,
      body,
    ),
    ...courierLine(
      [
        [165, 'Sed Rate'],
        [900, '48 H'],
        [1270, 'mm/h'],
        [1690, '0-20'],
      ],
      1200,
      body,
    ),
    ...courierLine(
      [
        [165, 'Homocyst|eine'],
        [900, '8.0'],
        [1270, 'umol/L'],
        [1690, '<15.|0'],
      ],
      1260,
      body,
    ),
    ...courierLine(
      [
        [165, 'Urine Col|or'],
        [900, 'Yel|low'],
        [1690, 'Yel|low'],
      ],
      1320,
      body,
    ),
    ...courierLine(
      [
        [165, 'Hepatitis C Antibody'],
        [900, 'Non-|Reactive'],
        [1690, 'Non-|Reactive'],
      ],
      1380,
      body,
    ),
  ];
}

const page = (words: ExtractedWord[]) => ({ width: 2550, height: 3300, words });
const cellsOf = (words: ExtractedWord[]) => pageLines(page(words), 0).map((line) => line.cells.map((cell) => cell.text));
/** Words in lines by their top, as OCR gives them. */
const groupedLines = (words: ExtractedWord[]) => [...new Set(words.map((w) => w.y))].map((y) => words.filter((w) => w.y === y));

describe('monospaced lines told by their character grid', () => {
  it('finds each size of Courier on a faxed page by its own grid, where one pitch over the page fits none', () => {
    const words = faxedPage();
    const lines = groupedLines(words);
    const pitches = monospacePitches(lines);
    expect(pitches.every((pitch) => pitch !== null)).toBe(true);
    // The header's grid, the address lines' and the body's, each within 2% of the pitch printed.
    const printed = [17, 18.5, 18.5, 21, 21, 21, 21, 21, 21, 21];
    pitches.forEach((pitch, i) => expect(Math.abs((pitch as number) / printed[i] - 1)).toBeLessThan(0.02));
  });

  it("joins a faxed page's split words and keeps its label, value and result cells", () => {
    const cells = cellsOf(faxedPage());
    expect(cells).toEqual(
      expect.arrayContaining([
        ['PATIENT NAME: KUCERA, JAMES', 'DATE OF BIRTH: 05/10/2001'],
        ['ORDERED BY: Whitehorse, Dana DO', 'COLL DATE: 08/07/2025 7:43 AM'],
        ['Sed Rate', '48 H', 'mm/h', '0-20'],
        ['Homocysteine', '8.0', 'umol/L', '<15.0'],
        ['Urine Color', 'Yellow', 'Yellow'],
        ['Hepatitis C Antibody', 'Non-Reactive', 'Non-Reactive'],
      ]),
    );
  });

  it('joins a letter OCR read as a word of its own to the rest of its word, and keeps an initial, or a letter before a glyph OCR lost, apart from the next word', () => {
    const words = [
      ...reportBody(),
      ...courierLine(
        [
          [165, 'ATTN: KUCERA, J|AMES'],
          [1650, 'CC: DOE, J ROBERT'],
        ],
        1450,
        21,
      ),
    ];
    expect(cellsOf(words)).toEqual(expect.arrayContaining([['ATTN: KUCERA, JAMES', 'CC: DOE, J ROBERT']]));
    // `O'ROURKE` with its apostrophe lost: the apostrophe's cell is blank (0.76 of a cell here), no join.
    const lost = courierLine([[165, "NAME: O'ROURKE, TAMARA"]], 1450, 21).filter((w) => !w.text.startsWith("O'"));
    const o = { text: 'O', x: 165 + 6 * 21 + 2, y: 1450, w: 17, h: 26, confidence: 0.9 };
    const rourke = { text: 'ROURKE,', x: o.x + o.w + 16, y: 1450, w: 7 * 21 - 4, h: 26, confidence: 0.9 };
    expect(
      cellsOf([...reportBody(), ...lost, o, rourke])
        .flat()
        .join(' '),
    ).toContain('O ROURKE,');
  });

  it("keeps a bold word's pieces on its line where OCR's box for the first spans the rest, and a word boxed as wide as its letters apart", () => {
    const word = (text: string, x: number, y: number, w: number, h: number) => ({ text, x, y, w, h, confidence: 0.88 });
    // `VERI` boxed over `FI ED:` (Courier bold's `VERIFIED:`), centres 3 px apart.
    const split = [word('VERI', 916, 899, 180, 28), word('FI', 1010, 895, 32, 42), word('ED:', 1052, 895, 53, 42), word('08/09/2025', 1127, 900, 208, 31)];
    expect(cellsOf(split)).toHaveLength(1);
    // A word boxed as its letters are (`mandez`) and another over it print on two lines.
    expect(pageLines(page([word('mandez', 326, 367, 137, 22), word('4', 403, 359, 21, 30)]), 0)).toHaveLength(2);
  });

  it('finds the grid of a photographed Courier page, its word starts scattered, by its spaces a whole cell wide', () => {
    // A photo's blur and each word's first glyph (its ink inset from the cell by its own side
    // bearing) move word starts off the grid by up to a sixth of a cell: the page's grid scores
    // 6.0, under the 6.1 a scan clears, but its spaces are still a whole cell of blank.
    const scatter = [0, 0.2, -0.15, 0.1, -0.2, 0.15, -0.1, 0.05, 0.2, -0.05].map((s) => s * 0.75);
    const photographed = (words: ExtractedWord[], pitch: number) => words.map((w, i) => ({ ...w, x: Math.round(w.x + scatter[i % scatter.length] * pitch) }));
    const courier = [
      'PATI|ENT NAME: KUCERA, JAMES      DATE OF BIRTH: 05/10/2001',
      'ORDERED BY: Whitehorse, Dana DO     COLL DATE: 08/07/2025 7:43 AM',
      'Laboratory Outreach Services - 1200 Prairie View Rd',
      'CLIA 38D9296628 - Medical Director: P. Engstrom, MD',
      'Hepatitis C Antibody    Non-|Reactive    Non-|Reactive',
      'Urine Col|or    Yel|l|ow    Yel|l|ow',
      'Specific Gravity    1.|005    1.|005-1.|030',
      'Specimen received in good condition, results reviewed',
    ];
    const lines = groupedLines(
      photographed(
        courier.flatMap((text, i) => courierLine([[165, text]], 300 + i * 60, 21)),
        21,
      ),
    );
    expect(monospacePitches(lines).every((pitch) => pitch !== null && Math.abs(pitch / 21 - 1) < 0.02)).toBe(true);
    // Proportional lines scattered alike keep their narrow spaces: no grid.
    const proportional = courier.map((text, i) => photographed(helveticaLine(text.replaceAll('|', ''), 150, 300 + i * 60, 35), 21));
    expect(monospacePitches(proportional)).toEqual(proportional.map(() => null));
  });

  it('judges no proportional line monospaced, however even its words', () => {
    const lines = [
      'Patient Name: Kucera, James Date of Birth: 05/10/2001',
      'Ordering Physician: Whitehorse, Dana DO Collected: 08/07/2025 7:43 AM',
      'Laboratory Outreach Services - 1200 Prairie View Rd, Ogallala NE 69153',
      'Hepatitis C Antibody Non-Reactive Non-Reactive',
      'Specimen received in good condition, results reviewed by the laboratory director',
      'Hemolysis noted: potassium may be falsely elevated, recollection advised',
    ].map((text, i) => helveticaLine(text, 150, 300 + i * 60, 35));
    expect(monospacePitches(lines)).toEqual(lines.map(() => null));
  });

  it('keeps the words of a proportional line apart on a page set in Courier', () => {
    // One size of Courier: judged over the whole page, the page was monospaced and every line joined.
    const words = [...reportBody(), ...helveticaLine('Total protein will be repeated on a fresh specimen if clinically indicated', 165, 1500, 35)];
    const last = cellsOf(words).at(-1) ?? [];
    // After `Total` (a narrow `l`) the blank is a proportional space, not half a Courier cell:
    // joined, it would read `Totalprotein`.
    expect(last.join(' ')).toContain('Total protein');
  });

  it('reads a text layer as it is', () => {
    const words = courierLine([[165, 'Urine Col|or']], 100, 21).map((w) => ({ ...w, confidence: null }));
    expect(monospacePitches([words])).toEqual([null]);
  });
});
