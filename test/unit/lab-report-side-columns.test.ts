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
    const read = separateSideColumns(
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
    expect(separateSideColumns(grid)).toEqual(grid);
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
    expect(separateSideColumns(block)).toEqual(block);
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
