import { pageLines } from '../../src/lab-reports/parsing/layout';
import fs from 'node:fs';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import {
  detectReportFileKind,
  extractReport,
  matchReport,
  parseReport,
  ReportParseFailure,
  type ExtractedDocument,
  type ExtractedWord,
  type ParsedReport,
} from '../../src/lab-reports/parsing';
import { FAMILIES, HELD_OUT, INDEPENDENT, labReportCorpus, UNSEEN, type Corpus } from '../fixtures/lab-reports/corpus';
import { scoreReport } from '../fixtures/lab-reports/evaluate';
import { curatedLoincCatalogue, parsedResult, topLoincCode } from '../helpers/lab-report-catalogue';

const catalogue = curatedLoincCatalogue();

function pdf(draw: (doc: PDFKit.PDFDocument) => void): Promise<Uint8Array> {
  const doc = new PDFDocument({ size: 'LETTER', margin: 50 });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Uint8Array>((resolve) => doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks)))));
  draw(doc);
  doc.end();
  return done;
}

describe('lab report parsing of a text PDF', () => {
  it('reads a table with flag, units, interval and a previous-result column that is not the value', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Helvetica-Bold').fontSize(16).text('Northwind Clinical Laboratories', 50, 50);
      doc.font('Helvetica').fontSize(9);
      doc.text('Patient: DOE, JANE M', 50, 80).text('DOB: 03/14/1980', 250, 80).text('Sex: F', 400, 80);
      doc.text('Collected: 11/02/2026 08:15', 50, 95).text('Reported: Nov 3, 2026', 250, 95).text('Accession: NW-2026-118842', 400, 95);
      doc.font('Helvetica-Bold').text('COMPREHENSIVE METABOLIC PANEL', 50, 130);
      const x = [50, 230, 300, 340, 420, 520];
      ['Test', 'Result', 'Flag', 'Units', 'Reference Range', 'Previous'].forEach((h, i) => doc.text(h, x[i], 145));
      doc.font('Helvetica');
      const rows = [
        ['Glucose', '105', 'H', 'mg/dL', '65-99', '98'],
        ['Hemoglobin A1c', '5.4', '', '%', '<5.7', '5.6'],
        ['TSH', '2.10', '', 'mIU/L', '0.40-4.50', '1.9'],
        ['Platelet Count', '1,250', 'HH', 'x10E3/uL', '140-400', '250'],
      ];
      rows.forEach((r, j) => r.forEach((c, i) => c && doc.text(c, x[i], 160 + j * 14)));
    });
    expect(detectReportFileKind(bytes)).toBe('pdf');
    const extracted = await extractReport(bytes, 'pdf');
    expect(extracted.method).toBe('text');
    const data = matchReport(parseReport(extracted), catalogue);
    expect(data.metadata).toEqual({
      patient_first_name: 'JANE',
      patient_last_name: 'DOE',
      dob: '1980-03-14',
      gender: 'female',
      lab_name: 'Northwind Clinical Laboratories',
      date_collected: '2026-11-02',
      date_reported: '2026-11-03',
      specimen_number: 'NW-2026-118842',
    });
    expect(
      data.results.map((r) => [r.test_name, r.value, r.units, r.min_reference_range, r.max_reference_range, r.interpretation, r.loinc_matches[0]?.loinc_code]),
    ).toEqual([
      ['Glucose', '105', 'mg/dL', 65, 99, 'abnormal', '2345-7'],
      ['Hemoglobin A1c', '5.4', '%', undefined, 5.7, 'normal', '4548-4'],
      ['TSH', '2.10', 'mIU/L', 0.4, 4.5, 'normal', '3016-3'],
      ['Platelet Count', '1250', 'x10E3/uL', 140, 400, 'critical', '777-3'],
    ]);
    expect(data.results[0]).toMatchObject({
      source_panel_name: 'COMPREHENSIVE METABOLIC PANEL',
      is_above_max_range: true,
      is_below_min_range: false,
      loinc_match_status: 'auto_match',
      type: 'numeric',
    });
  });

  it('refuses a file that is not a PDF, JPEG or PNG, and a corrupt PDF as invalid input', async () => {
    expect(detectReportFileKind(new TextEncoder().encode('hello'))).toBeNull();
    const corrupt = new TextEncoder().encode('%PDF-1.7\nthis is not really a pdf');
    await expect(extractReport(corrupt, 'pdf')).rejects.toMatchObject({ reason: 'invalid_input' });
    await expect(extractReport(corrupt, 'pdf')).rejects.toBeInstanceOf(ReportParseFailure);
  });
});

describe('lab report parsing of the generated corpus (text PDFs)', () => {
  let corpus: Corpus;
  beforeAll(async () => {
    corpus = await labReportCorpus(undefined, { images: false });
  }, 300_000);

  const read = (file: string) => new Uint8Array(fs.readFileSync(path.join(corpus.dir, file)));
  // Each text PDF read and parsed once, for the tests that go through the corpus.
  const readings = new Map<string, Promise<{ doc: ExtractedDocument; parsed: ParsedReport }>>();
  const parsedFile = (file: string) => {
    let reading = readings.get(file);
    if (!reading) {
      reading = extractReport(read(file), 'pdf').then((doc) => ({ doc, parsed: parseReport(doc) }));
      readings.set(file, reading);
    }
    return reading;
  };

  it('reads every result of every tuned layout family exactly: value, units, interval, interpretation, LOINC, panel; and the metadata', async () => {
    // The unseen (O-Q) and independent (R-T) families are scored by bench:lab-reports, not held to every field here.
    const apart = [...HELD_OUT, ...UNSEEN, ...INDEPENDENT];
    const texts = corpus.reports.filter((r) => r.kind === 'text_pdf' && !apart.includes(r.lab));
    expect(new Set(texts.map((r) => r.lab)).size).toBeGreaterThanOrEqual(FAMILIES.length - apart.length);
    for (const report of texts) {
      const { doc, parsed } = await parsedFile(report.file);
      expect(doc.method).toBe('text');
      const data = matchReport(parsed, catalogue);
      const score = scoreReport(data, report);
      expect({ file: report.file, misses: score.misses }).toEqual({ file: report.file, misses: [] });
      const panels = data.results.map((r) => r.source_panel_name);
      expect({ file: report.file, panels }).toEqual({ file: report.file, panels: report.results.map((r) => r.panel) });
      expect(data.results.every((r) => r.loinc_match_status === 'auto_match')).toBe(true);
    }
  });

  it('on every family, held out or not, names the patient right or not at all: a name or date of birth it reports is the printed one', async () => {
    const texts = corpus.reports.filter((r) => r.kind === 'text_pdf');
    expect(FAMILIES.length).toBeGreaterThanOrEqual(12);
    for (const report of texts) {
      const { metadata } = (await parsedFile(report.file)).parsed;
      const wrong = (['patient_first_name', 'patient_last_name', 'dob'] as const).filter(
        (field) => metadata[field] !== null && metadata[field]?.toLowerCase() !== report.metadata[field].toLowerCase(),
      );
      expect({ file: report.file, wrong }).toEqual({ file: report.file, wrong: [] });
    }
  });

  it('follows a table across a page break without reading the running header, footer or previous results', async () => {
    const long = corpus.reports.find((r) => r.file === 'northwind-long.pdf');
    expect(long?.pages).toBeGreaterThan(1);
    const data = matchReport(parseReport(await extractReport(read('northwind-long.pdf'), 'pdf')), catalogue);
    expect(data.results).toHaveLength(long?.results.length ?? -1);
    const harbour = matchReport(parseReport(await extractReport(read('harbourview.pdf'), 'pdf')), catalogue);
    const truth = corpus.reports.find((r) => r.file === 'harbourview.pdf');
    expect(harbour.results.map((r) => r.value)).toEqual(truth?.results.map((r) => r.value));
  });

  it.each([
    ['corrupt.pdf', 'invalid_input'],
    ['encrypted.pdf', 'invalid_input'],
    ['letter.pdf', 'invalid_input'],
    ['german.pdf', 'not_english'],
    ['too-many-pages.pdf', 'too_many_pages'],
  ])('refuses %s with failure reason %s', async (file, reason) => {
    const bytes = read(file);
    expect(detectReportFileKind(bytes)).toBe('pdf');
    const run = async () => parseReport(await extractReport(bytes, 'pdf'));
    await expect(run()).rejects.toBeInstanceOf(ReportParseFailure);
    await expect(run()).rejects.toMatchObject({ reason });
  });
});

/** A one-page OCR reading made of words at given positions (what tesseract returns). */
function ocrDocument(rows: string[][], xs: number[]): ExtractedDocument {
  const words: ExtractedWord[] = [];
  rows.forEach((cells, r) => {
    cells.forEach((cell, c) => {
      let x = xs[c];
      for (const text of cell.split(' ').filter(Boolean)) {
        words.push({ text, x, y: 100 + r * 40, w: text.length * 14, h: 24, confidence: 0.9 });
        x += text.length * 14 + 10;
      }
    });
  });
  return { kind: 'png', method: 'ocr', pages: [{ width: 2550, height: 3300, words }], ocrConfidence: 0.9, language: 'en' };
}

/**
 * Words as OCR boxes a page printed in a monospaced font: every character a 21 px cell (each word
 * and piece starting on the cell grid of its table cell, its ink 2 px in from the cell's edges),
 * one cell of blank between words, and a piece of a word split off after a narrow glyph (`|` marks
 * the split, as `Col|or` or `Non-|Reactive` come out of a Courier scan) with 12 px between (the
 * narrow glyph's ink ends 10 px short of its cell).
 */
function monospaceDocument(rows: string[][], xs: number[]): ExtractedDocument {
  const pitch = 21;
  const words: ExtractedWord[] = [];
  rows.forEach((cells, r) => {
    cells.forEach((cell, c) => {
      let at = 0;
      for (const word of cell.split(' ').filter(Boolean)) {
        const pieces = word.split('|');
        pieces.forEach((piece, i) => {
          const split = i < pieces.length - 1;
          words.push({ text: piece, x: xs[c] + at * pitch + 2, y: 100 + r * 40, w: piece.length * pitch - (split ? 14 : 4), h: 26, confidence: 0.9 });
          at += piece.length;
        });
        at += 1;
      }
    });
  });
  return { kind: 'png', method: 'ocr', pages: [{ width: 2550, height: 3300, words }], ocrConfidence: 0.9, language: 'en' };
}

describe('reports printed in a monospaced font', () => {
  const xs = [100, 900, 1400, 1800];
  it('joins the pieces OCR splits after narrow glyphs, and keeps words and columns apart', () => {
    const parsed = parseReport(
      monospaceDocument(
        [
          ['Analyte', 'Ref Range', 'Units', 'Result'],
          ['Urine Col|or', 'Yel|low', '', 'Yel|low'],
          ['Specific Gravity', '1.|005-1.|030', '', '1.|024'],
          ['Hepatitis C Antibody', 'Non-|Reactive', '', 'Non-|Reactive'],
          ['Leukocyte Esterase', 'Negative', '', 'Negative'],
          ['Glucose', '65-99', 'mg/dL', '104'],
        ],
        xs,
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.reference_text])).toEqual([
      ['Urine Color', 'Yellow', 'Yellow'],
      ['Specific Gravity', '1.024', '1.005-1.030'],
      ['Hepatitis C Antibody', 'Non-Reactive', 'Non-Reactive'],
      ['Leukocyte Esterase', 'Negative', 'Negative'],
      ['Glucose', '104', '65-99'],
    ]);
  });

  it('leaves a proportional page as OCR read it', () => {
    // ocrDocument's words differ in pitch as a proportional font's do once widths vary.
    const words: ExtractedWord[] = ['Total', 'protein', 'Albumin', 'Globulin', 'Bilirubin', 'Creatinine', 'Potassium', 'Chloride', 'Calcium'].map(
      (text, i) => ({ text, x: 100, y: 100 + i * 40, w: text.length * (10 + (i % 4) * 3), h: 24, confidence: 0.9 }),
    );
    words.push({ text: 'Vital', x: 100, y: 600, w: 50, h: 24, confidence: 0.9 }, { text: 'signs', x: 158, y: 600, w: 50, h: 24, confidence: 0.9 });
    const lines = pageLines({ width: 2550, height: 3300, words }, 0);
    expect(lines[lines.length - 1].cells.map((c) => c.text)).toEqual(['Vital signs']);
  });
});

describe('a report printed with decimal commas', () => {
  it('reads its values and intervals with decimal points, and leaves a thousands group alone', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Helvetica-Bold').fontSize(16).text('Laboratoire Saint-Laurent', 50, 50);
      doc.font('Helvetica').fontSize(9);
      doc.text('Nom: TREMBLAY, Julie', 50, 80).text('Date de naissance: 1975-03-12', 250, 80);
      const x = [50, 230, 300, 380];
      ['Analyse', 'Résultat', 'Unités', 'Valeurs de référence'].forEach((h, i) => doc.text(h, x[i], 130));
      const rows = [
        ['Glucose', '5,0', 'mmol/L', '3,6 - 5,5'],
        ['Potassium', '5,8', 'mmol/L', '3,5 - 5,3'],
        ['Apo B', '0,67', 'g/L', '< 0,90'],
        ['Leucocytes', '6,4', '10^9/L', '4,0 - 11,0'],
      ];
      rows.forEach((r, j) => r.forEach((c, i) => doc.text(c, x[i], 145 + j * 14)));
    });
    const parsed = parseReport(await extractReport(bytes, 'pdf'));
    expect(parsed.results.map((r) => [r.test_name, r.value, r.reference_text])).toEqual([
      ['Glucose', '5.0', '3.6-5.5'],
      ['Potassium', '5.8', '3.5-5.3'],
      ['Apo B', '0.67', '<0.90'],
      ['Leucocytes', '6.4', '4.0-11.0'],
    ]);
  });
});

describe('a label that names a report date only beside a date', () => {
  it('reads `Uitslag / Report` beside its date as the date reported, not as a result row', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Helvetica-Bold').fontSize(16).text('Noordwaard Ziekenhuis', 50, 50);
      doc.font('Helvetica').fontSize(9);
      doc.text('Naam / Name', 50, 80).text('Jansen, Pieter', 150, 80);
      doc.text('Afname / Drawn', 300, 92).text('16-08-2025 09:57', 400, 92);
      doc.text('Uitslag / Report', 300, 104).text('18-08-2025 18:19', 400, 104);
      const x = [50, 200, 300, 380];
      ['Bepaling / Test', 'Uitslag / Result', 'Eenheid / Unit', 'Ref.waarde / Ref. range'].forEach((h, i) => doc.text(h, x[i], 130));
      [['Glucose', '4,3', 'mmol/L', '(3,6 - 5,5)']].forEach((r, j) => r.forEach((c, i) => doc.text(c, x[i], 145 + j * 14)));
    });
    const parsed = parseReport(await extractReport(bytes, 'pdf'));
    expect(parsed.metadata).toMatchObject({ date_collected: '2025-08-16', date_reported: '2025-08-18' });
    expect(parsed.results.map((r) => r.test_name)).toEqual(['Glucose']);
  });
});

describe('reports printed in Italian, Turkish and Vietnamese', () => {
  it('reads multi-word qualitative results, and takes no result from a letter’s place and date or a line of labelled dates', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Helvetica-Bold').fontSize(16).text('Ospedale Santa Chiara', 50, 50);
      doc.font('Helvetica').fontSize(9);
      doc.text('Cognome / Surname: RICCI', 50, 80).text('Data prelievo / Collected: 15/01/2025 09:48', 300, 80);
      doc.text('Kurum / Insurer', 50, 92).text('SGK', 150, 92).text('Kabul / Received', 300, 92).text('04.06.2025 11:39', 400, 92);
      const x = [50, 200, 300, 380];
      ['Esame / Test', 'Risultato / Result', 'Unità / Units', 'Valori di riferimento'].forEach((h, i) => doc.text(h, x[i], 130));
      const rows = [
        ['HBsAg', 'Non reattivo', '', 'Non reattivo'],
        ['Aspetto', 'Torbido', '', 'Limpido'],
        ['Glucosio', '92', 'mg/dL', '70 - 99'],
      ];
      rows.forEach((r, j) => r.forEach((c, i) => c && doc.text(c, x[i], 145 + j * 14)));
      doc.text('Vigevano, 16 gennaio 2025', 50, 220);
    });
    const parsed = parseReport(await extractReport(bytes, 'pdf'));
    expect(parsed.results.map((r) => [r.test_name, r.value, r.type])).toEqual([
      ['HBsAg', 'Non reattivo', 'boolean'],
      ['Aspetto', 'Torbido', 'comment'],
      ['Glucosio', '92', 'numeric'],
    ]);
  });

  it('reads Polish serology results (`reaktywny`, `niereaktywny`) as results', () => {
    const parsed = parseReport(
      ocrDocument(
        [
          ['Badanie / Test', 'Wynik', 'Jednostka', 'Zakres ref. / Ref. range'],
          ['Antygen HBs (HBsAg) / HBsAg', 'reaktywny', '', 'niereaktywny'],
          ['HIV Ag/Ab (combo) / HIV Ag/Ab', 'niereaktywny', '', 'niereaktywny'],
        ],
        [100, 900, 1300, 1700],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.type, r.interpretation])).toEqual([
      ['Antygen HBs (HBsAg) / HBsAg', 'reaktywny', 'boolean', 'abnormal'],
      ['HIV Ag/Ab (combo) / HIV Ag/Ab', 'niereaktywny', 'boolean', 'normal'],
    ]);
  });

  it('matches LOINC by either half of a bilingual name, by an analyser’s abbreviation in brackets, and reads `HDL dışı` as non-HDL', () => {
    const codeOf = (test_name: string, units: string, value: string) => topLoincCode(parsedResult(test_name, units, value), catalogue);
    expect(codeOf('Tốc độ máu lắng (VS) / ESR', 'mm/h', '12')).toBe('4537-7');
    expect(codeOf('Số lượng bạch cầu (WBC)', 'G/L', '6.5')).toBe('6690-2');
    expect(codeOf('Tỷ lệ bạch cầu trung tính (NEU%)', '%', '60')).toBe('770-8');
    expect(codeOf('HDL dışı kolesterol', 'mg/dL', '130')).toBe('43396-1');
    expect(codeOf('VES (velocità di eritrosedimentazione)', 'mm/h', '20')).toBe('4537-7');
  });
});

describe('a report printed with decimal commas in bracketed intervals', () => {
  it('counts the bounds of an interval printed as one word, and reads a comma after a lone zero as decimal', async () => {
    // Of its numbers only `7,5` has one or two digits after its comma: the rest are in `(5,0-8,0)`
    // or three digits long (`0,657`, `(1,005-1,030)`).
    const bytes = await pdf((doc) => {
      doc.font('Helvetica-Bold').fontSize(16).text('Noordwaard Ziekenhuis', 50, 50);
      doc.font('Helvetica').fontSize(9);
      doc.text('Naam / Name: BROUWER, C.A. (KEES)', 50, 80).text('Geboortedatum / Date of birth: 02-05-1946', 250, 80);
      doc.text('Urine Microscopy & Chemistry', 50, 115);
      const x = [50, 200, 300, 380];
      ['Bepaling / Test', 'Uitslag / Result', 'Eenheid / Unit', 'Ref.waarde / Ref. range'].forEach((h, i) => doc.text(h, x[i], 130));
      const rows = [
        ['Colour', 'Yellow', '', 'Yellow'],
        ['SG', '0,657', '', '(1,005-1,030)'],
        ['Urine pH', '7,5', '', '(5,0-8,0)'],
        ['Urine Protein', 'Negative', '', 'Negative'],
      ];
      rows.forEach((r, j) => r.forEach((c, i) => c && doc.text(c, x[i], 145 + j * 14)));
    });
    const parsed = parseReport(await extractReport(bytes, 'pdf'));
    expect(parsed.results.map((r) => [r.test_name, r.value, r.min_reference_range, r.max_reference_range])).toEqual([
      ['Colour', 'Yellow', null, null],
      ['SG', '0.657', 1.005, 1.03],
      ['Urine pH', '7.5', 5, 8],
      ['Urine Protein', 'Negative', null, null],
    ]);
  });

  it('keeps a thousands group on a report whose numbers print decimal points', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Helvetica-Bold').fontSize(16).text('Cedarline Dialysis Laboratory', 50, 50);
      doc.font('Helvetica').fontSize(9);
      const x = [50, 230, 300, 380];
      ['Test', 'Result', 'Units', 'Reference Range'].forEach((h, i) => doc.text(h, x[i], 130));
      const rows = [
        ['Platelet Count', '1,048', 'x10E3/uL', '(150-450)'],
        ['Ferritin', '1,005', 'ng/mL', '(30-400)'],
        ['Hemoglobin', '10.4', 'g/dL', '(13.2-17.1)'],
        ['Potassium', '5.1', 'mmol/L', '(3.5-5.3)'],
      ];
      rows.forEach((r, j) => r.forEach((c, i) => doc.text(c, x[i], 145 + j * 14)));
    });
    const parsed = parseReport(await extractReport(bytes, 'pdf'));
    expect(parsed.results.map((r) => [r.test_name, r.value])).toEqual([
      ['Platelet Count', '1048'],
      ['Ferritin', '1005'],
      ['Hemoglobin', '10.4'],
      ['Potassium', '5.1'],
    ]);
  });
});

describe('a power of ten printed as a superscript', () => {
  it('reads `x10³/µL` as the unit of a cell count', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Helvetica-Bold').fontSize(16).text('Hanbit University Hospital', 50, 50);
      doc.font('Helvetica').fontSize(9);
      // Its unit column after the interval's, as a Korean hospital's report prints them.
      const x = [50, 200, 260, 300, 380, 450];
      ['Test Name', 'Result', 'Flag', 'Reference', 'Unit', 'Prev. Result'].forEach((h, i) => doc.text(h, x[i], 130));
      const rows = [
        ['WBC', '6.2', '', '3.8-10.8', 'x10³/µL', '5.9'],
        ['Hemoglobin', '14.1', '', '13.2-17.1', 'g/dL', '13.8'],
        ['Platelet', '231', '', '140-400', 'x10³/µL', '240'],
      ];
      rows.forEach((r, j) => r.forEach((c, i) => c && doc.text(c, x[i], 145 + j * 14)));
    });
    const data = matchReport(parseReport(await extractReport(bytes, 'pdf')), catalogue);
    // The text layer gives the micro sign as a Greek mu (`μ`).
    expect(data.results.map((r) => [r.test_name, r.value, r.units?.replace('μ', 'µ'), r.loinc_matches[0]?.loinc_code])).toEqual([
      ['WBC', '6.2', 'x10³/µL', '6690-2'],
      ['Hemoglobin', '14.1', 'g/dL', '718-7'],
      ['Platelet', '231', 'x10³/µL', '777-3'],
    ]);
  });
});

describe('a one-sided interval printed in brackets', () => {
  it('reads `(> 60)` as a lower bound and `(< 9)` as an upper one', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Helvetica-Bold').fontSize(16).text('Noordwaard Ziekenhuis', 50, 50);
      doc.font('Helvetica').fontSize(9);
      const x = [50, 200, 260, 360];
      ['Bepaling / Test', 'Uitslag / Result', 'Eenheid / Unit', 'Ref.waarde / Ref. range'].forEach((h, i) => doc.text(h, x[i], 130));
      const rows = [
        ['Kreatinine / Creatinine', '77', 'umol/L', '(53 - 115)'],
        ['eGFR (CKD-EPI)', '>90', 'mL/min/1.73m2', '(> 60)'],
        ['Anti-TPO', '<1', 'IU/mL', '(< 9)'],
        ['Anti-TG', '12', 'IU/mL', '[< 4]'],
      ];
      rows.forEach((r, j) => r.forEach((c, i) => doc.text(c, x[i], 145 + j * 14)));
    });
    const parsed = parseReport(await extractReport(bytes, 'pdf'));
    expect(parsed.results.map((r) => [r.test_name, r.min_reference_range, r.max_reference_range, r.interpretation])).toEqual([
      ['Kreatinine / Creatinine', 53, 115, 'normal'],
      ['eGFR (CKD-EPI)', 60, null, 'normal'],
      ['Anti-TPO', null, 9, 'normal'],
      ['Anti-TG', null, 4, 'abnormal'],
    ]);
  });
});

describe('test names printed in Dutch', () => {
  it('meet the codes of their English names, alone or beside them', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Helvetica-Bold').fontSize(16).text('Noordwaard Ziekenhuis', 50, 50);
      doc.font('Helvetica').fontSize(9);
      const x = [50, 250, 310, 390];
      ['Bepaling / Test', 'Uitslag / Result', 'Eenheid / Unit', 'Ref.waarde / Ref. range'].forEach((h, i) => doc.text(h, x[i], 130));
      const rows = [
        ['Leukocyten', '6.1', '10^9/L', '4.0-10.0'],
        ['Trombocyten', '250', '10^9/L', '150-400'],
        ['Lymfocyten %', '30', '%', '20-45'],
        ['Eosinofielen %', '3', '%', '1-6'],
        ['Basofielen %', '1', '%', '0-2'],
        ['Kalium', '4.1', 'mmol/L', '3.5-5.0'],
        ['Totaal eiwit / Total protein', '70', 'g/L', '61-81'],
        ['Albumine / Albumin', '39', 'g/L', '36-51'],
        ['Alkalische fosfatase', '49', 'U/L', '36-130'],
        ['IJzer', '18', 'umol/L', '10-30'],
        ['Glucose nuchter', '5.2', 'mmol/L', '3.6-5.5'],
        ['BSE', '8', 'mm/h', '0-20'],
        ['ASAT', '20', 'U/L', '10-40'],
        ['ALAT', '32', 'U/L', '9-46'],
        ['Hemoglobine (Hb)', '8.9', 'mmol/L', '8.5-11.0'],
      ];
      rows.forEach((r, j) => r.forEach((c, i) => doc.text(c, x[i], 145 + j * 14)));
    });
    const data = matchReport(parseReport(await extractReport(bytes, 'pdf')), catalogue);
    expect(data.results.map((r) => [r.test_name, r.loinc_matches[0]?.loinc_code])).toEqual([
      ['Leukocyten', '6690-2'],
      ['Trombocyten', '777-3'],
      ['Lymfocyten %', '736-9'],
      ['Eosinofielen %', '713-8'],
      ['Basofielen %', '706-2'],
      ['Kalium', '2823-3'],
      ['Totaal eiwit / Total protein', '2885-2'],
      ['Albumine / Albumin', '1751-7'],
      ['Alkalische fosfatase', '6768-6'],
      ['IJzer', '14798-3'],
      ['Glucose nuchter', '14771-0'],
      ['BSE', '4537-7'],
      ['ASAT', '1920-8'],
      ['ALAT', '1742-6'],
      // Haemoglobin in mmol/L is its own code; in g/dL, 718-7.
      ['Hemoglobine (Hb)', '59260-0'],
    ]);
  });
});

describe('a long test name run into its value', () => {
  it('reads the number at its end that stands in the result column as the value', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Helvetica-Bold').fontSize(16).text('Highland Medical Laboratory', 50, 50);
      doc.font('Helvetica').fontSize(9);
      // The name's last letter ends 3 points before the result column: the layout step reads name and value as one cell.
      const result = 50 + doc.widthOfString('Thyroid Peroxidase Antibodies') + 3;
      const x = [50, result, result + 60, result + 140];
      ['Test', 'Result', 'Units', 'Reference Range'].forEach((h, i) => doc.text(h, x[i], 130));
      doc.text('TSH', x[0], 145).text('2.75', x[1], 145).text('uIU/mL', x[2], 145).text('0.40-4.50', x[3], 145);
      doc.text('Thyroid Peroxidase Antibodies', x[0], 159, { lineBreak: false });
      doc.text('4', x[1], 159).text('IU/mL', x[2], 159).text('<9', x[3], 159);
    });
    const parsed = parseReport(await extractReport(bytes, 'pdf'));
    expect(parsed.results.map((r) => [r.test_name, r.value, r.units, r.reference_text])).toEqual([
      ['TSH', '2.75', 'uIU/mL', '0.40-4.50'],
      ['Thyroid Peroxidase Antibodies', '4', 'IU/mL', '<9'],
    ]);
  });
});

describe('a table whose headings are printed in two languages', () => {
  it('takes them for its columns, so the panel heading over them names its rows’ specimen', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Helvetica-Bold').fontSize(16).text('Hôpital Mont-Royal - Laboratoire', 50, 50);
      doc.font('Helvetica').fontSize(9);
      doc.text('Urinalysis, Complete', 50, 110);
      const x = [50, 230, 330, 430];
      ['Analyse / Test', 'Résultat / Result', 'Unités / Units', 'Réf. / Ref.'].forEach((h, i) => doc.text(h, x[i], 130));
      const rows = [
        ['Protein', 'Negative', '', 'Negative'],
        ['Glucose', 'Negative', '', 'Negative'],
        ['Specific Gravity', '1.018', '', '1.005 - 1.030'],
      ];
      rows.forEach((r, j) => r.forEach((c, i) => c && doc.text(c, x[i], 145 + j * 14)));
    });
    const parsed = parseReport(await extractReport(bytes, 'pdf'));
    expect(parsed.results.map((r) => [r.test_name, r.source_panel_name, r.specimen])).toEqual([
      ['Protein', 'Urinalysis, Complete', 'urine'],
      ['Glucose', 'Urinalysis, Complete', 'urine'],
      ['Specific Gravity', 'Urinalysis, Complete', 'urine'],
    ]);
  });
});

describe('OCR noise handled with evidence', () => {
  const xs = [100, 900, 1200, 1500, 1900];
  const header = ['Test', 'Result', 'Flag', 'Units', 'Reference Range'];

  it('restores a lost decimal point from the interval the lab prints with decimals, when the flag agrees', () => {
    const parsed = parseReport(
      ocrDocument(
        [
          header,
          ['TSH', '21', '', 'mIU/L', '0.40-4.50'],
          ['Free T4', '25', 'H', 'ng/dL', '0.8-1.8'],
          ['CRP', '45', 'H', 'mg/L', '0.0-5.0'],
          ['Cortisol', '35', 'L', 'mcg/dL', '4.0-22.0'],
          ['Creatinine', '8', 'H', 'mg/dL', '0.6-1.3'],
        ],
        xs,
      ),
    );
    const byName = (name: string) => parsed.results.find((r) => r.test_name === name);
    // No flag: 21 is far above 0.40-4.50, 2.1 inside it.
    expect(byName('TSH')).toMatchObject({ value: '2.1', interpretation: 'normal' });
    expect(byName('TSH')?.notes[0]).toMatch(/decimal point restored: 21 → 2.1/);
    // Flagged high: 2.5 is high too (and 25 ng/dL is no free T4), so the flag agrees with 2.5.
    expect(byName('Free T4')).toMatchObject({ value: '2.5', interpretation: 'abnormal', is_above_max_range: true });
    // Flagged high, but 4.5 would be normal: a real high CRP stays as printed.
    expect(byName('CRP')).toMatchObject({ value: '45', is_above_max_range: true, notes: [] });
    // Flagged low on a number above the interval, which cannot be: 3.5 is below it.
    expect(byName('Cortisol')).toMatchObject({ value: '3.5', is_below_min_range: true });
    // Not over 4x the upper limit: a high creatinine stays.
    expect(byName('Creatinine')).toMatchObject({ value: '8', notes: [] });
  });

  it('restores a lost decimal point beside an interval whose comparator or dash OCR lost, or under a low flag inside its interval, and makes no interval of a lone bound', () => {
    const parsed = parseReport(
      ocrDocument(
        [
          header,
          // `(<5.2)` read `(5.2)`, `<5.0` read `5.0`: upper or lower limit cannot be told, the magnitude can.
          ['Cholesterol', '24', '', 'mmol/L', '(5.2)'],
          ['Chol/HDL Ratio', '34', '', 'ratio', '5.0'],
          // `(0.60-1.30)` read `(0.60 1.30)`, `3.6-5.1` read `3.65.1`, `1.9-3.7` read `1.9.3.7`: the interval, its dash lost.
          ['Creatinine', '121', '', 'mg/dL', '(0.60 1.30)'],
          ['Albumin', '39', '', 'g/dL', '3.65.1'],
          ['Globulin', '31', '', 'g/dL', '1.9.3.7'],
          // Flagged low inside its interval, which cannot be: 1.9 is below it.
          ['Insulin', '19', 'L', 'mIU/L', '2.6-24.9'],
          // Within 4x of the bound, or flagged: as printed.
          ['LDL Cholesterol', '9', '', 'mmol/L', '(2.6)'],
          ['CRP', '45', 'H', 'mg/L', '(5.0)'],
          // `(>1.03)` read `(1.03)`: 0.24 would be far under a lower limit's scale, so 24 stays.
          ['HDL Cholesterol', '24', '', 'mmol/L', '(1.03)'],
        ],
        xs,
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.min_reference_range, r.max_reference_range])).toEqual([
      ['Cholesterol', '2.4', null, null],
      ['Chol/HDL Ratio', '3.4', null, null],
      ['Creatinine', '1.21', 0.6, 1.3],
      ['Albumin', '3.9', 3.6, 5.1],
      ['Globulin', '3.1', 1.9, 3.7],
      ['Insulin', '1.9', 2.6, 24.9],
      ['LDL Cholesterol', '9', null, null],
      ['CRP', '45', null, null],
      ['HDL Cholesterol', '24', null, null],
    ]);
    expect(parsed.results[0].notes).toEqual([expect.stringMatching(/decimal point restored: 24 → 2.4 \(reference 5.2, its comparator unread\)/)]);
  });

  it('puts a whole value beyond what its analyte can be back into scale, on OCR readings only, by the code it matches', () => {
    const rows = [
      header,
      // Both the value's and the interval's decimal points lost: only the analyte's scale tells.
      ['Globulin', '32', '', 'g/dL', '19-37'],
      ['Potassium', '24', 'L', 'mmol/L', '35-53'],
      ['Hemoglobin A1c', '23', '', '%', '<7'],
      // In scale, or in another unit, or an analyte whose values span more than tenfold: as read.
      ['Albumin', '39', '', 'g/L', '35-50'],
      ['Sodium', '187', '', 'mmol/L', '135-145'],
      ['Creatinine', '121', '', 'mg/dL', ''],
    ];
    const read = matchReport(parseReport(ocrDocument(rows, xs)), catalogue);
    // The interval beyond the scale too (`19-37`, `35-53`) lost its points alike; `<7` did not.
    expect(read.results.map((r) => [r.test_name, r.value, r.min_reference_range ?? null, r.max_reference_range ?? null, r.interpretation])).toEqual([
      ['Globulin', '3.2', 1.9, 3.7, 'normal'],
      ['Potassium', '2.4', 3.5, 5.3, 'abnormal'],
      ['Hemoglobin A1c', '2.3', null, 7, 'normal'],
      ['Albumin', '39', 35, 50, 'normal'],
      ['Sodium', '187', 135, 145, 'abnormal'],
      ['Creatinine', '121', null, null, 'unknown'],
    ]);
    // A text layer prints what the lab printed: no decimal point was lost.
    const printed = matchReport({ ...parseReport(ocrDocument(rows, xs)), ocr: undefined }, catalogue);
    expect(printed.results.slice(0, 3).map((r) => r.value)).toEqual(['32', '24', '23']);
  });

  it("takes a number with decimals after a row's unit for its magnitude where no header says what it is", () => {
    const lines = ocrDocument(
      [
        ['Glycated Hemoglobin', '24', '%', '5.7', '2.3'],
        ['Total Protein', '7.1', 'g/dL', '6.0-8.3', '7.0'],
      ],
      [100, 900, 1200, 1500, 1900],
    );
    expect(parseReport(lines).results.map((r) => [r.test_name, r.value])).toEqual([
      ['Glycated Hemoglobin', '2.4'],
      ['Total Protein', '7.1'],
    ]);
  });

  it('reads a decimal point OCR read as a colon back as a point, in values and intervals, and keeps titres and times', () => {
    const parsed = parseReport(
      ocrDocument(
        [
          header,
          ['Haemoglobin', '15:3', '', 'g/dL', '13:2-17:1'],
          ['Potassium', '4:1', '', 'mmol/L', '3.5-5.3'],
          ['ANA Titer', '1:160', 'H', 'titer', '<1:40'],
          // Not a narrative `Name: value unit (interval)` item named `Hemoglobin (Hb) 14` at 1.
          ['Hemoglobin (Hb)', '14:1', '', 'g/dL', '(13.2-17.1)'],
        ],
        xs,
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.min_reference_range, r.max_reference_range])).toEqual([
      ['Haemoglobin', '15.3', 13.2, 17.1],
      ['Potassium', '4.1', 3.5, 5.3],
      ['ANA Titer', '1:160', null, null],
      ['Hemoglobin (Hb)', '14.1', 13.2, 17.1],
    ]);
  });

  it('matches a name read as `Hemoglobin Alc` to A1c and tells percentages from absolute counts by their units', () => {
    const parsed = parseReport(
      ocrDocument(
        [header, ['Hemoglobin Alc', '5.4', '', '%', '<5.7'], ['Lymphocytes', '31.0', '', '%', '20-45'], ['Lymphocytes', '1.9', '', 'x10E3/uL', '0.85-3.9']],
        xs,
      ),
    );
    const data = matchReport(parsed, catalogue);
    expect(data.results.map((r) => r.loinc_matches[0].loinc_code)).toEqual(['4548-4', '736-9', '731-0']);
    expect(data.results[0].loinc_match_status).toBe('auto_match');
  });

  it("reads a cell count's unit OCR garbled as one unit, so the row is kept with its previous result beside it", () => {
    // No header: the row is read by its cells, and `107 3/uL` was a number and a stray word.
    const parsed = parseReport(
      ocrDocument(
        [
          ['White Blood Cell Count', '13.0 H', '107 3/uL', '3.8-10.8', '12.3'],
          ['Red Blood Cell Count', '2.66 L', '10” 6/uL', '4.20-5.80', '2.59'],
          ['Platelet Count', '254', '10~3/uL', '140-400', '244'],
        ],
        [100, 900, 1200, 1500, 1900],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.units, r.min_reference_range, r.flag])).toEqual([
      ['White Blood Cell Count', '13.0', '10^3/uL', 3.8, 'H'],
      ['Red Blood Cell Count', '2.66', '10^6/uL', 4.2, 'L'],
      ['Platelet Count', '254', '10^3/uL', 140, null],
    ]);
  });

  it("reads a dipstick's grade with its flag run into it (`2+A`) and matches a qualitative result to the urine test, not the serum one", () => {
    const data = matchReport(
      parseReport(
        ocrDocument(
          [
            ['Test', 'Result', 'Units', 'Reference Range'],
            ['Protein', 'Negative', '', 'Negative'],
            ['Glucose', '2+A', '', 'Negative'],
          ],
          [100, 900, 1200, 1500],
        ),
      ),
      catalogue,
    );
    expect(data.results.map((r) => [r.test_name, r.value, r.interpretation, r.loinc_matches[0].loinc_code])).toEqual([
      ['Protein', 'Negative', 'normal', '5804-0'],
      ['Glucose', '2+', 'abnormal', '5792-7'],
    ]);
    // A number is the serum's.
    const serum = matchReport(parseReport(ocrDocument([header, ['Glucose', '105', 'H', 'mg/dL', '65-99']], xs)), catalogue);
    expect(serum.results[0].loinc_matches[0].loinc_code).toBe('2345-7');
  });

  it("matches a name OCR misread by a letter it confuses (I, l, 1, T; a capital doubled) when that is one test's name, and gives the name as the catalogue spells it", () => {
    const data = matchReport(
      parseReport(
        ocrDocument(
          [
            header,
            ['AIP', '118', '', 'U/L', '36-130'],
            ['Tron', '162', '', 'mcg/dL', '50-180'],
            ['Free 13', '3.3', '', 'pg/mL', '2.3-4.2'],
            ['LDI-C', '92', '', 'mg/dL', '<100'],
            ['CcOo2', '27', '', 'mEq/L', '20-32'],
            ['Oesiradiol', '21', '', 'pg/mL', '12-166'],
            ['ALT', '30', '', 'U/L', '7-56'],
          ],
          xs,
        ),
      ),
      catalogue,
    );
    expect(data.results.map((r) => [r.test_name, r.loinc_matches[0]?.loinc_code])).toEqual([
      ['ALP', '6768-6'],
      ['Iron', '2498-4'],
      ['Free T3', '3051-0'],
      ['LDL-C', '13457-7'],
      ['CO2', '2028-9'],
      // Folded as printed, not through the synonym (`Oestradiol` → `Estradiol`).
      ['Oestradiol', '2243-4'],
      // A name that is a test's own is never folded (`ALT` and `AIT` fold alike).
      ['ALT', '1742-6'],
    ]);
    // Two names folding alike (`PIT`: `PLT` or `PTT`): the unit read chooses, else neither is guessed.
    const platelets = matchReport(parseReport(ocrDocument([header, ['PIT', '232', '', 'KuL', '140-400'], ['PIT', '232', '', '', '140-400']], xs)), catalogue);
    expect(platelets.results.map((r) => [r.test_name, r.loinc_matches[0]?.loinc_code])).toEqual([
      ['PLT', '777-3'],
      ['PIT', undefined],
    ]);
    // Units choose between the codes one restored name has: Iron in µmol/L is the SI code.
    const si = matchReport(parseReport(ocrDocument([header, ['Tron', '29', '', 'umol/L', '9-30']], xs)), catalogue);
    expect(si.results[0].loinc_matches[0].loinc_code).toBe('14798-3');
  });

  it('takes a unit no lab prints (OCR garbled it) for no evidence: the name alone chooses', () => {
    // `nlUL` for `mIU/L` was taken for another kind of unit than TSH's, and the match left for review.
    const data = matchReport(parseReport(ocrDocument([header, ['TSH', '3.48', '', 'nlUL', '0.40-4.50']], xs)), catalogue);
    expect(data.results[0].loinc_matches[0]).toMatchObject({ loinc_code: '3016-3', confidence_score: 1 });
    expect(data.results[0].loinc_match_status).toBe('auto_match');
  });

  it('reads a decimal point OCR read as a colon before two digits where the interval is a number, and keeps titres', () => {
    const parsed = parseReport(
      ocrDocument(
        [
          header,
          ['FT4', '1:21', '', 'ng/dL', '0.80-1.80'],
          ['PSA', '3:12', '', 'ng/mL', '0.00-4.00'],
          // A dilution stays a titre even beside a number's interval (OCR may have misread the `:` there).
          ['ANA Titer', '1:80', 'H', '', '<1.40'],
          ['Rheumatoid Factor', '1:160', '', '', '<1:40'],
        ],
        xs,
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.type])).toEqual([
      ['FT4', '1.21', 'numeric'],
      ['PSA', '3.12', 'numeric'],
      ['ANA Titer', '1:80', 'ratio'],
      ['Rheumatoid Factor', '1:160', 'ratio'],
    ]);
    expect(parsed.results[0].notes[0]).toMatch(/decimal point read as a colon: 1:21 → 1.21/);
  });

  it('reads `<l` as `<1`, a flag after a stray quote mark, and takes no lone letter for a unit', () => {
    const parsed = parseReport(
      ocrDocument(
        [header, ['Thyroid Peroxidase Ab', '<l', '', 'IU/mL', '<9'], ['Free T4', "2.52'H", '', 'ng/dL', '0.80-1.80'], ['Glucose', '2+A', '', 'i', 'Negative']],
        xs,
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.flag, r.units])).toEqual([
      ['Thyroid Peroxidase Ab', '<1', null, 'IU/mL'],
      ['Free T4', '2.52', 'H', 'ng/dL'],
      ['Glucose', '2+', 'A', null],
    ]);
  });

  it("drops a row whose result OCR garbled rather than read its interval's bound as the value; a word stays", () => {
    const parsed = parseReport(
      ocrDocument(
        [
          header,
          ['Homocysteine', 'Td.', '', 'umol/L.', '<15.0'],
          ['Estimated GFR', 'Bil', '', 'mL/min/1.73m2', '>60'],
          ['Urine Color', 'Yel1ow', '', '', 'Yellow'],
          ['Sodium', '140', '', 'mmol/L', '135-145'],
        ],
        xs,
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value])).toEqual([
      ['Urine Color', 'Yellow'],
      ['Sodium', '140'],
    ]);
  });

  it('reads a header printed in two languages, so the heading over it names the panel (and the urine specimen)', () => {
    const parsed = parseReport(
      ocrDocument(
        [
          ['URINALYSIS, ROUTINE'],
          ['Exame / Test', 'Resultado / Result', 'Unidade / Unit', 'Valores de referência / Reference values'],
          ['Protein', 'Negative', '', 'Negative'],
          ['Sp. Gravity', '1.017', '', '1.005-1.030'],
        ],
        [100, 900, 1200, 1500],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.source_panel_name, r.specimen])).toEqual([
      ['Protein', 'Negative', 'URINALYSIS, ROUTINE', 'urine'],
      ['Sp. Gravity', '1.017', 'URINALYSIS, ROUTINE', 'urine'],
    ]);
  });

  it('reads a table whose values print under Normal or Abnormal', () => {
    const parsed = parseReport(
      ocrDocument(
        [
          ['Test Description', 'Normal', 'Abnormal', 'Units', 'Expected'],
          ['Ferritin', '326', '', 'ug/L', '38-380'],
          ['Iron, Total', '', '261 H', 'mcg/dL', '50-180'],
        ],
        [100, 900, 1300, 1800, 2300],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.flag])).toEqual([
      ['Ferritin', '326', null],
      ['Iron, Total', '261', 'H'],
    ]);
  });

  it('reads narrative summaries, comparators and qualitative values', () => {
    const parsed = parseReport(
      ocrDocument(
        [
          ['Glucose: 105 mg/dL (ref 65-99) H', 'hs-CRP: <0.2 mg/L (ref <3.0)'],
          ['Nitrite: Positive (ref Negative) A', 'eGFR: >90 mL/min/1.73m2 (ref >60)'],
        ],
        [100, 1300],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.type, r.interpretation])).toEqual([
      ['Glucose', '105', 'numeric', 'abnormal'],
      ['hs-CRP', '<0.2', 'range', 'normal'],
      ['Nitrite', 'Positive', 'boolean', 'abnormal'],
      ['eGFR', '>90', 'range', 'normal'],
    ]);
  });
});

describe('a photo read twice (the frame, and the sheet flattened)', () => {
  const xs = [100, 900, 1400, 1800];
  const table = [
    ['Test', 'Result', 'Units', 'Reference Interval'],
    ['Glucose', '104', 'mg/dL', '65-99'],
    ['Sodium', '141', 'mEq/L', '135-146'],
  ];
  it('takes its results from the page and each metadata field from the reading surer of it', () => {
    // The page's reading lost the name label (`Pat1ent Nxme`); the other read it, and misread a result.
    const page = ocrDocument([['Pat1ent Nxme: DOE, JANE', 'DOB: 03/14/1980'], ...table], xs);
    const other = ocrDocument([['Patient Name: DOE, JANE', 'DOB: 03/14/1980'], ...table.slice(0, 2), ['Sodium', '171', 'mEq/L', '135-146']], xs);
    const parsed = parseReport({ ...page, pages: [{ ...page.pages[0], alternative: other.pages[0] }] });
    expect(parsed.metadata).toMatchObject({ patient_first_name: 'JANE', patient_last_name: 'DOE', dob: '1980-03-14' });
    expect(parsed.results.map((r) => [r.test_name, r.value])).toEqual([
      ['Glucose', '104'],
      ['Sodium', '141'],
    ]);
    // Without the other reading, the name is not read.
    expect(parseReport(page).metadata.patient_last_name).toBeNull();
  });

  it('takes a value the other reading has with its decimal point, the interval read alike; not other digits', () => {
    const page = ocrDocument([...table, ['Monocyte', '17', '%', '2.0-10.0'], ['Calcium', '94', 'mg/dL', '86-102'], ['Eosinophils', '22', '%', '0.0-6.0']], xs);
    // The other reading: 1.7 (its interval alike), 9.4 under another interval, 2.3 (other digits).
    const other = ocrDocument(
      [...table, ['Monocyte', '1.7', '%', '2.0-10.0'], ['Calcium', '9.4', 'mg/dL', '8.6-10.2'], ['Eosinophils', '2.3', '%', '0.0-6.0']],
      xs,
    );
    const parsed = parseReport({ ...page, pages: [{ ...page.pages[0], alternative: other.pages[0] }] });
    expect(parsed.results.slice(2).map((r) => [r.test_name, r.value, r.interpretation])).toEqual([
      ['Monocyte', '1.7', 'abnormal'],
      ['Calcium', '94', 'normal'],
      ['Eosinophils', '22', 'abnormal'],
    ]);
    expect(parsed.results[2].notes).toContain('decimal point from the second reading: 17 → 1.7');
  });

  it('adds the rows only the other reading found, once: a row whose name one reading garbled is the same row', () => {
    const rows = [
      ['ALT', '32', 'U/L', '0-44'],
      ['Potassium', '4.1', 'mEq/L', '3.5-5.3'],
      ['Chloride', '101', 'mEq/L', '98-110'],
    ];
    // The page's reading garbled `ALT` as `AIT` and lost the potassium row; the other read both.
    const page = ocrDocument([['Patient: DOE, JANE'], ...table, ['AIT', '32', 'U/L', '0-44'], rows[2]], xs);
    const other = ocrDocument([['Patient: DOE, JANE'], ...table, ...rows], xs);
    const parsed = parseReport({ ...page, pages: [{ ...page.pages[0], alternative: other.pages[0] }] });
    expect(parsed.results.map((r) => [r.test_name, r.value])).toEqual([
      ['Glucose', '104'],
      ['Sodium', '141'],
      [expect.stringMatching(/^A[IL]T$/), '32'],
      ['Potassium', '4.1'],
      ['Chloride', '101'],
    ]);
  });
});
