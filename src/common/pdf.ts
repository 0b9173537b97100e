import PDFDocument from 'pdfkit';

/**
 * What labflow's PDFs (requisitions, result reports) share: US Letter, the standard Helvetica
 * fonts (nothing embedded), a 50 pt margin, section headings with a rule, "Label: value" fields,
 * a footer on every page, and text reduced to what those fonts can print.
 */
export const PDF_MARGIN = 50;
export const PDF_FONT = 'Helvetica';
export const PDF_BOLD = 'Helvetica-Bold';
export const PDF_GREY = '#555555';

export interface PdfInfo {
  title: string;
  author: string;
  subject: string;
  /**
   * The PDF's creation and modification dates, and so its file id: the same content and date
   * give the same bytes.
   */
  date: Date;
  /** Pages of another size than US Letter (points) and their margin; the default is Letter with labflow's margins. */
  page?: { size: [number, number]; margin: number };
}

/** Renders a document laid out by `layout` (pages buffered, so `pageFooters` can number them). */
export function renderPdf(info: PdfInfo, layout: (doc: PDFKit.PDFDocument) => void): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const doc = new PDFDocument({
      size: info.page?.size ?? 'LETTER',
      margins: info.page
        ? { top: info.page.margin, bottom: info.page.margin, left: info.page.margin, right: info.page.margin }
        : { top: PDF_MARGIN, bottom: PDF_MARGIN + 20, left: PDF_MARGIN, right: PDF_MARGIN },
      bufferPages: true,
      info: {
        Title: info.title,
        Author: info.author,
        Subject: info.subject,
        Creator: 'labflow',
        Producer: 'labflow',
        CreationDate: info.date,
        ModDate: info.date,
      },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    try {
      layout(doc);
      doc.end();
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/** The width between the margins. */
export function contentWidth(doc: PDFKit.PDFDocument): number {
  return doc.page.width - PDF_MARGIN * 2;
}

/** A section heading with a rule under it; starts a new page rather than orphaning the heading. */
export function section(doc: PDFKit.PDFDocument, title: string): void {
  doc.moveDown(0.8);
  keepTogether(doc, 40);
  const width = contentWidth(doc);
  doc.font(PDF_BOLD).fontSize(11).fillColor('black').text(title, PDF_MARGIN, doc.y, { width });
  const y = doc.y + 1;
  doc
    .moveTo(PDF_MARGIN, y)
    .lineTo(PDF_MARGIN + width, y)
    .lineWidth(0.5)
    .strokeColor(PDF_GREY)
    .stroke();
  doc.y = y + 4;
}

export function field(doc: PDFKit.PDFDocument, label: string, value: string): void {
  doc
    .font(PDF_BOLD)
    .fontSize(10)
    .fillColor('black')
    .text(`${label}: `, PDF_MARGIN, doc.y, { width: contentWidth(doc), continued: true });
  doc.font(PDF_FONT).text(pdfSafe(value));
}

export function paragraph(doc: PDFKit.PDFDocument, text: string): void {
  doc
    .font(PDF_FONT)
    .fontSize(10)
    .fillColor('black')
    .text(pdfSafe(text), PDF_MARGIN, doc.y, { width: contentWidth(doc), lineGap: 1 });
}

/** Adds a page when fewer than `height` points are left on this one. */
export function keepTogether(doc: PDFKit.PDFDocument, height: number): void {
  if (doc.y + height > doc.page.height - doc.page.margins.bottom) doc.addPage();
}

/** `text(page, pages)` centred at the foot of every page (1-based page numbers). */
export function pageFooters(doc: PDFKit.PDFDocument, text: (page: number, pages: number) => string): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i += 1) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing inside the margin must not start a new page
    doc.font(PDF_FONT).fontSize(8).fillColor(PDF_GREY);
    doc.text(pdfSafe(text(i + 1, range.count)), PDF_MARGIN, doc.page.height - PDF_MARGIN, { width: contentWidth(doc), align: 'center', lineBreak: false });
    doc.page.margins.bottom = bottom;
  }
}

/** `YYYY-MM-DD HH:MM UTC`. */
export function formatDateTime(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The standard PDF fonts only have WinAnsi glyphs: other characters (CJK, emoji, …) are printed
 * as "?" rather than as wrong glyphs. Tabs become spaces; other control characters are dropped.
 */
export function pdfSafe(text: string): string {
  return [...text.replace(/\r\n?/g, '\n').replace(/\t/g, ' ')]
    .map((char) => {
      const code = char.codePointAt(0) ?? 0;
      if (char === '\n') return char;
      if (code < 32 || (code >= 127 && code < 160)) return '';
      return code <= 255 || WIN_ANSI_EXTRA.has(char) ? char : '?';
    })
    .join('');
}

/** WinAnsi characters outside Latin-1. */
const WIN_ANSI_EXTRA = new Set([...'€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ']);
