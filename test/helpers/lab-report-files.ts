import PDFDocument from 'pdfkit';

/** A small one-page lab report with a text layer (an invented lab), as PDF bytes. */
export function textReportPdf(options: { patient?: string; dob?: string } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 50 });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.fontSize(16).text('Northwind Clinical Laboratory', 50, 50);
    doc.fontSize(10);
    doc.text(`Patient: ${options.patient ?? 'Doe, Jane'}`, 50, 80);
    doc.text(`DOB: ${options.dob ?? '1985-04-12'}`, 50, 95);
    doc.text('Collected: 2026-03-02   Reported: 2026-03-04', 50, 110);
    doc.text('Specimen: NW-2026-000123', 50, 125);
    const rows: Array<[string, string, string, string, string]> = [
      ['Test', 'Result', 'Flag', 'Units', 'Reference Interval'],
      ['Glucose', '92', '', 'mg/dL', '70-99'],
      ['Hemoglobin A1c', '6.1', 'H', '%', '4.0-5.6'],
      ['Cholesterol, Total', '185', '', 'mg/dL', '<200'],
    ];
    const columns = [50, 220, 300, 350, 430];
    rows.forEach((row, i) => row.forEach((cell, c) => doc.text(cell, columns[c], 160 + i * 18, { lineBreak: false })));
    doc.end();
  });
}

/** The first bytes of a PNG, JPEG: enough for type detection (not decodable images). */
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
