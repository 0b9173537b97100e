import PDFDocument from 'pdfkit';
import { extractReport, parseReport } from '../../src/lab-reports/parsing';
import type { Line } from '../../src/lab-reports/parsing/layout';
import { parseMetadata } from '../../src/lab-reports/parsing/metadata';
import { separateSideColumns, sideColumnOf } from '../../src/lab-reports/parsing/side-columns';

function pdf(draw: (doc: PDFKit.PDFDocument) => void): Promise<Uint8Array> {
  const doc = new PDFDocument({ size: 'LETTER', margin: 30 });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Uint8Array>((resolve) => doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks)))));
  draw(doc);
  doc.end();
  return done;
}

/** Lines from `[x, text]` cells, one line per entry, 12 units apart. */
function lines(...rows: [number, string][][]): Line[] {
  return rows.map((cells, i) => ({
    page: 0,
    y: 100 + i * 12,
    height: 9,
    cells: cells.map(([x, text]) => ({ text, x0: x, x1: x + text.length * 4.5, words: [] })),
    text: cells.map(([, text]) => text).join('  '),
    confidence: 1,
  }));
}

const TABLE = [
  ['Glucose', '92', '', 'mg/dL', '70-99'],
  ['Creatinine', '1.45', 'H', 'mg/dL', '0.60-1.20'],
  ['Sodium', '139', '', 'mmol/L', '135-145'],
  ['Potassium', '4.2', '', 'mmol/L', '3.5-5.1'],
  ['Chloride', '101', '', 'mmol/L', '98-107'],
  ['Calcium', '9.4', '', 'mg/dL', '8.5-10.2'],
  ['ALT', '22', '', 'U/L', '7-56'],
  ['AST', '19', '', 'U/L', '10-40'],
];

/** A sidebar's label/value lines sharing their rows with a results table (x, text per word). */
const SIDEBAR_BESIDE_TABLE: [number, string][][] = [
  [
    [30, 'PATIENT'],
    [200, 'Test'],
    [330, 'Result'],
  ],
  [
    [30, 'SMITH, JOHN'],
    [200, 'Glucose'],
    [330, '92'],
  ],
  [
    [30, 'DOB'],
    [200, 'Sodium'],
    [330, '139'],
  ],
  [
    [30, '01/02/1970'],
    [200, 'Calcium'],
    [330, '9.4'],
  ],
];

describe('a side column of labels over their values beside the results', () => {
  it('reads the patient from a right-hand panel of stacked labels and keeps every result row whole', async () => {
    // Results on the left, the patient panel on the right; the panel's lines fall between and on the table's rows.
    const bytes = await pdf((doc) => {
      doc.font('Helvetica-Bold').fontSize(15).text('Granite Peak Laboratories', 40, 40);
      doc.font('Helvetica-Bold').fontSize(9).text('BASIC CHEMISTRY', 40, 90);
      const x = [40, 190, 240, 265, 320];
      ['Analyte', 'Result', 'Flag', 'Units', 'Reference'].forEach((h, i) => doc.text(h, x[i], 108));
      doc.font('Helvetica');
      TABLE.forEach((row, r) => row.forEach((text, i) => text && doc.text(text, x[i], 124 + r * 15, { lineBreak: false })));
      const panel: [string, string][] = [
        ['Patient Name', 'Whitaker, Rosalind J'],
        ['Birth Date', 'Sep 2, 1971'],
        ['Gender', 'Female'],
        ['Accession #', 'GP-88120-4'],
        ['Collection Date', 'Mar 3, 2026'],
        ['Report Date', 'Mar 5, 2026'],
        ['Ordering Physician', 'Priya Raman, MD'],
      ];
      panel.forEach(([label, value], i) => {
        doc
          .font('Helvetica-Bold')
          .fontSize(7)
          .text(label, 430, 96 + i * 21, { lineBreak: false });
        doc
          .font('Helvetica')
          .fontSize(9)
          .text(value, 430, 104 + i * 21, { lineBreak: false });
      });
    });
    const parsed = parseReport(await extractReport(bytes, 'pdf'));
    expect(parsed.metadata).toMatchObject({
      patient_first_name: 'Rosalind',
      patient_last_name: 'Whitaker',
      dob: '1971-09-02',
      gender: 'female',
      specimen_number: 'GP-88120-4',
      date_collected: '2026-03-03',
      date_reported: '2026-03-05',
      ordering_provider: 'Priya Raman',
    });
    expect(parsed.results.map((r) => [r.test_name, r.value, r.units, r.reference_text])).toEqual(
      TABLE.map(([name, value, , units, range]) => [name, value, units, range]),
    );
  });

  it('parts a left-hand sidebar from the table rows its lines share, reading it first', () => {
    const { lines: read } = separateSideColumns(
      lines(...SIDEBAR_BESIDE_TABLE, [
        [200, 'Chloride'],
        [330, '101'],
      ]),
    );
    expect(read.map((l) => l.text)).toEqual([
      'PATIENT',
      'SMITH, JOHN',
      'DOB',
      '01/02/1970',
      'Test  Result',
      'Glucose  92',
      'Sodium  139',
      'Calcium  9.4',
      'Chloride  101',
    ]);
    expect(parseMetadata(read, 800)).toMatchObject({ patient_first_name: 'JOHN', patient_last_name: 'SMITH', dob: '1970-01-02' });
  });

  it('says which lines are the side column: they hold no results (a dialysis chair `TTS 3rd shift, chair 16` is no row)', () => {
    const page = lines(
      ...SIDEBAR_BESIDE_TABLE,
      [
        [30, 'Schedule'],
        [200, 'Chloride'],
        [330, '101'],
      ],
      [
        [30, 'TTS 3rd shift, chair 16'],
        [200, 'Potassium'],
        [330, '4.2'],
      ],
    );
    const { lines: read, side } = separateSideColumns(page);
    expect(read.filter((l) => side.has(l)).map((l) => l.text)).toEqual(['PATIENT', 'SMITH, JOHN', 'DOB', '01/02/1970', 'Schedule', 'TTS 3rd shift, chair 16']);
  });

  it('parts a sidebar whose label OCR read in two cells, and reads a bilingual label whose slash OCR read as a bracket', () => {
    // `Naissance / Date of birth` read as `Naissance / Date` and `birth` (its `of` set a line apart), `Sexe / Sex` as `Sexe [Sex`.
    const page = lines(
      [
        [30, 'Nom / Name'],
        [200, 'Analyse / Test'],
        [330, 'Résultat'],
        [400, 'Unités'],
      ],
      [
        [30, 'GÉLINAS'],
        [200, 'Glucose'],
        [330, '5,0'],
        [400, 'mmol/L'],
      ],
      [[30, 'Prénom / First name']],
      [
        [30, 'Réjean'],
        [200, 'Sodium'],
        [330, '137'],
        [400, 'mmol/L'],
      ],
      [
        [30, 'Naissance / Date'],
        [110, 'birth'],
        [200, 'Potassium'],
        [330, '4,2'],
        [400, 'mmol/L'],
      ],
      [[30, '1949-01-26']],
      [
        [30, 'Sexe [Sex'],
        [200, 'Calcium'],
        [330, '2,40'],
        [400, 'mmol/L'],
      ],
      [[30, 'Masculin / Male']],
    );
    expect(sideColumnOf(page)).toMatchObject({ band: 'left', top: 100 - 9, bottom: 100 + 7 * 12 + 9 + 9 });
    const { lines: read } = separateSideColumns(page);
    expect(read.slice(0, 8).map((l) => l.text)).toEqual([
      'Nom / Name',
      'GÉLINAS',
      'Prénom / First name',
      'Réjean',
      'Naissance / Date  birth',
      '1949-01-26',
      'Sexe [Sex',
      'Masculin / Male',
    ]);
    // (The birth date's label, read in two, names no field: extract.ts reads the sidebar again alone, where OCR reads it whole.)
    expect(parseMetadata(read, 800)).toMatchObject({ patient_first_name: 'Réjean', patient_last_name: 'GÉLINAS', gender: 'male' });
    // A quarter of its lines in two cells (a table's columns, not one column of text) is too many.
    const partedMore = page.map((line) => line.cells.map((c): [number, string] => [c.x0, c.text]));
    partedMore[1].splice(1, 0, [110, '4901']);
    expect(sideColumnOf(lines(...partedMore))).toBeNull();
  });

  it("does not take a table's name column into a sidebar beside it: a line's pieces a column apart are no text OCR parted", () => {
    const sidebar = ['Name', 'Hannah A. Whitfield', 'Born', '20 April 1962', 'Sex', 'Female', 'Sample', '1558-4894'];
    const rows: [number, string][][] = [];
    sidebar.forEach((text, i) => {
      rows.push(
        i === 3
          ? [
              [30, text],
              [200, 'Color'],
              [330, 'Yellow'],
            ]
          : [[30, text]],
      );
      if (i === 1 || i === 5)
        rows.push([
          [200, TABLE[i][0]],
          [330, TABLE[i][1]],
        ]);
    });
    expect(sideColumnOf(lines(...rows))).toMatchObject({ band: 'left', gutter: (30 + 19 * 4.5 + 200) / 2 });
    // A speck OCR read beside a line of the sidebar (`Lo.   .`) is no piece of it, however far.
    const specked = rows.map((row) => (row[0][1] === 'Sex' ? [...row, [150, '.']] : row)) as [number, string][][];
    expect(sideColumnOf(lines(...specked))).toMatchObject({ band: 'left', gutter: (150 + 4.5 + 200) / 2 });
  });

  it('finds, by its layout alone when asked, a sidebar whose labels OCR garbled, its lines interleaved with a table under a header', () => {
    // A photo's sidebar: `Name`, `Born`, `Sex`, `Sample`, `Taken` read as `ye`, `: om`, `St`, `—`, `Thien`.
    const sidebar: [number, string][][] = [
      [[30, 'ye']],
      [
        [200, 'Investigation'],
        [330, 'Result'],
        [400, 'Unit'],
        [450, 'Reference'],
      ],
      [[30, 'Sofia L Hernandez']],
      [
        [30, ': om'],
        [200, 'B12'],
        [330, '843'],
        [400, 'pg/mL'],
        [450, '200-1100'],
      ],
      [[30, '21 May 1952']],
      [
        [200, 'Ferritin, Serum'],
        [330, '493'],
        [400, 'ng/mL'],
        [450, '38-380'],
      ],
      [[30, 'St']],
      [
        [30, 'Female'],
        [200, 'Folate, Serum'],
        [330, '10.0'],
        [400, 'ng/mL'],
        [450, '>5.4'],
      ],
      [
        [30, '—'],
        [200, 'Iron'],
        [330, '66'],
        [400, 'ug/dL'],
        [450, '50-180'],
      ],
      [[30, '4449-9559']],
      [
        [200, 'Iron Binding Capacity'],
        [330, '358'],
        [400, 'ug/dL'],
        [450, '250-450'],
      ],
      [[30, 'Thien']],
      [
        [30, '8 December 2025'],
        [200, 'Transferrin'],
        [330, '250'],
        [400, 'mg/dL'],
        [450, '200-360'],
      ],
    ];
    const page = lines([[30, 'Fjordvale Laboratory Medicine and its Clinics']], ...sidebar);
    expect(sideColumnOf(page)).toBeNull();
    expect(sideColumnOf(page, { byLayout: true })).toMatchObject({ band: 'left', top: (109 + 112) / 2, bottom: 100 + 13 * 12 + 9 + 9 });
    // The header may share its line with a cell of the column, or print below the column's last line.
    expect(sideColumnOf(lines([...sidebar[0], ...sidebar[1]], ...sidebar.slice(2)), { byLayout: true })).toMatchObject({ band: 'left' });
    expect(sideColumnOf(lines(sidebar[0], ...sidebar.slice(2), sidebar[1]), { byLayout: true })).toMatchObject({ band: 'left' });
    // Without the table's header beside it, or with fewer lines of its own (those on the table's rows alone), none is taken by layout.
    expect(sideColumnOf(lines(...sidebar.slice(2)), { byLayout: true })).toBeNull();
    expect(sideColumnOf(lines(...sidebar.filter((row) => row.length > 1)), { byLayout: true })).toBeNull();
  });

  it('says where a sidebar prints, so an image is read in two (the sidebar, and the page without it): halfway across its gutter, over its lines only', () => {
    const page = lines([[30, 'Riverside Laboratory Medical Group and Clinics']], ...SIDEBAR_BESIDE_TABLE, [
      [30, 'Riverside Laboratory Medical Group - page 1 of 1'],
    ]);
    // The sidebar's widest cell ends at 30 + 11 × 4.5, the table starts at 200; lines 12 apart, 9 high: halfway to the masthead and the footer.
    expect(sideColumnOf(page)).toEqual({ band: 'left', gutter: (30 + 49.5 + 200) / 2, top: 110.5, bottom: 158.5 });
    const tableAlone = lines(
      [
        [200, 'Glucose'],
        [330, '92'],
      ],
      [
        [200, 'Sodium'],
        [330, '139'],
      ],
    );
    expect(sideColumnOf(tableAlone)).toBeNull();
    // A table row just under the sidebar's last line, beside it, does not cut the sidebar short: its reach is the footer's.
    const rowUnder = [...page];
    rowUnder.splice(5, 0, { ...lines([[200, 'Chloride']])[0], y: 100 + 4 * 12 + 3 });
    expect(sideColumnOf(rowUnder)).toMatchObject({ top: 110.5, bottom: 158.5 });
  });

  it('leaves labels with their colons, one under another, beside their values on the same lines as they are, over a bilingual table', () => {
    const block = lines(
      [
        [30, 'No de requête / Requisition no.:'],
        [200, '250125-4948'],
      ],
      [
        [30, 'Provenance / Location:'],
        [200, 'CLSC Ahuntsic'],
      ],
      [
        [30, 'Prélevé le / Collected:'],
        [200, '2025/01/25 07:05'],
      ],
      [
        [30, 'Reçu le / Received:'],
        [200, '2025/01/25 10:50'],
      ],
      [
        [30, 'Date du rapport / Report date:'],
        [200, '2025/01/27 19:44'],
      ],
      [[30, 'Urinalysis, Complete']],
      [
        [30, 'Analyse / Test'],
        [200, 'Résultat / Result'],
        [330, 'Unités / Units'],
        [430, 'Valeurs de référence / Reference values'],
      ],
      [
        [30, 'Protein'],
        [200, 'Negative'],
        [430, 'Negative'],
      ],
    );
    expect(separateSideColumns(block).lines.map((l) => l.text)).toEqual(block.map((l) => l.text));
    expect(parseMetadata(block, 800)).toMatchObject({ date_collected: '2025-01-25', date_reported: '2025-01-27', specimen_number: '250125-4948' });
  });

  it('leaves a label/value grid and a two-column patient block as they are', () => {
    const grid = lines(
      [
        [30, 'Name'],
        [130, 'Jane Doe'],
        [300, 'Glucose'],
        [400, '92'],
      ],
      [
        [30, 'DOB'],
        [130, '01/02/1970'],
        [300, 'Sodium'],
        [400, '139'],
      ],
      [
        [30, 'Collected'],
        [130, '03/03/2026'],
        [300, 'Calcium'],
        [400, '9.4'],
      ],
    );
    expect(separateSideColumns(grid).lines).toEqual(grid);
    const block = lines(
      [
        [30, 'Patient: DOE, JANE'],
        [300, 'MRN: 0012345'],
      ],
      [
        [30, 'DOB: 01/02/1970'],
        [300, 'Sex: F'],
      ],
      [
        [30, 'Collected: 03/03/2026'],
        [300, 'Received: 03/03/2026'],
      ],
      [[30, 'Reported: 03/04/2026']],
    );
    expect(separateSideColumns(block).lines).toEqual(block);
  });

  it('leaves a block of labels no list knows, each with its one value beside it in a column of values, as it is (`Voorletters / Initials   D.`)', () => {
    const block = lines(
      [
        [40, 'Achternaam / Surname'],
        [183, 'Dekker'],
      ],
      [
        [40, 'Voorletters / Initials'],
        [183, 'D.'],
      ],
      [
        [40, 'Roepnaam / First name'],
        [183, 'Daan'],
      ],
      [
        [40, 'Geboortedatum / Date of birth'],
        [183, '05-02-1948'],
      ],
      [
        [40, 'Aanvrager / Requester'],
        [183, 'Trombosedienst Friesland'],
      ],
      [
        [40, 'Afdeling / Department'],
        [183, 'Trombosedienst'],
      ],
    );
    expect(separateSideColumns(block).lines).toEqual(block);
    expect(parseMetadata(block, 800)).toMatchObject({ patient_first_name: 'Daan', patient_last_name: 'Dekker' });
  });

  it('reads a label alone on its line with its value under it, but not a heading over another label or a table header', () => {
    expect(
      parseMetadata(lines([[30, 'Lab']], [[30, 'DATE OF BIRTH']], [[30, '14 Mar 1980']], [[30, 'Patient Name']], [[30, 'Okafor, Chidi']]), 800),
    ).toMatchObject({
      dob: '1980-03-14',
      patient_first_name: 'Chidi',
      patient_last_name: 'Okafor',
    });
    const heading = parseMetadata(lines([[30, 'Lab']], [[30, 'Patient']], [[30, 'Name: Jane Doe']]), 800);
    expect(heading).toMatchObject({ patient_first_name: 'Jane', patient_last_name: 'Doe' });
    const overHeader = parseMetadata(
      lines(
        [[30, 'Lab']],
        [[30, 'Specimen']],
        [
          [30, 'Test'],
          [200, 'Result'],
          [300, 'Units'],
        ],
      ),
      800,
    );
    expect(overHeader.specimen_number).toBeNull();
  });

  it('trusts a value under its label as far as its own words were read, and takes no date under an unread label for the report date', () => {
    const ocr = lines(
      [[30, 'Lab']],
      [[30, 'PATIENT']],
      [[30, 'DEL CRUZ OLIVER']],
      [[30, 'SEHR']],
      [[30, '08/15/2025']],
      [[30, 'DATE OF BIRTH']],
      [[30, '08/10/1993']],
    );
    const word = (text: string, confidence: number) => ({ text, x: 30, y: 0, w: 10, h: 9, confidence });
    ocr.forEach((line) => (line.cells[0].words = line.cells[0].text.split(' ').map((t) => word(t, 0.95))));
    ocr[2].cells[0].words = ['DEL', 'CRUZ', 'OLIVER'].map((t) => word(t, 0.1));
    const m = parseMetadata(ocr, 800);
    expect(m).toMatchObject({ patient_first_name: null, patient_last_name: null, dob: '1993-08-10', date_reported: null });
    expect(m.confidence.patient_last_name.confidence).toBeLessThan(0.5);
  });
});
