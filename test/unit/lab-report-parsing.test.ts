import PDFDocument from 'pdfkit';
import { buildLoincCatalogue, detectReportFileKind, extractReport, matchReport, parseReport, ReportParseFailure } from '../../src/lab-reports/parsing';
import { CURATED_LOINC } from '../../src/lab-tests/loinc-analytes.data';

const catalogue = buildLoincCatalogue(CURATED_LOINC.map((l) => ({ code: l.code, name: l.name, display_name: l.display, unit: l.unit, aliases: l.aliases, specimen: l.specimen })));

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
      patient_first_name: 'JANE', patient_last_name: 'DOE', dob: '1980-03-14', gender: 'female', lab_name: 'Northwind Clinical Laboratories',
      date_collected: '2026-11-02', date_reported: '2026-11-03', specimen_number: 'NW-2026-118842',
    });
    expect(data.results.map((r) => [r.test_name, r.value, r.units, r.min_reference_range, r.max_reference_range, r.interpretation, r.loinc_matches[0]?.loinc_code])).toEqual([
      ['Glucose', '105', 'mg/dL', 65, 99, 'abnormal', '2345-7'],
      ['Hemoglobin A1c', '5.4', '%', undefined, 5.7, 'normal', '4548-4'],
      ['TSH', '2.10', 'mIU/L', 0.4, 4.5, 'normal', '3016-3'],
      ['Platelet Count', '1250', 'x10E3/uL', 140, 400, 'critical', '777-3'],
    ]);
    expect(data.results[0]).toMatchObject({ source_panel_name: 'COMPREHENSIVE METABOLIC PANEL', is_above_max_range: true, is_below_min_range: false, loinc_match_status: 'auto_match', type: 'numeric' });
  });

  it('refuses a file that is not a PDF, JPEG or PNG, and a corrupt PDF as invalid input', async () => {
    expect(detectReportFileKind(new TextEncoder().encode('hello'))).toBeNull();
    const corrupt = new TextEncoder().encode('%PDF-1.7\nthis is not really a pdf');
    await expect(extractReport(corrupt, 'pdf')).rejects.toMatchObject({ reason: 'invalid_input' });
    await expect(extractReport(corrupt, 'pdf')).rejects.toBeInstanceOf(ReportParseFailure);
  });
});
