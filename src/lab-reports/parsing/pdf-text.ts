import type * as Unpdf from 'unpdf';
import { ReportParseFailure, MAX_REPORT_PAGES } from './failure';
import type { ExtractedPage, ExtractedWord } from './types';
import './pdfjs-node-compat';

/**
 * unpdf loads its pdf.js bundle (ES modules only) with a dynamic import. Required through Node's
 * own loader (not a test runner's module sandbox, which cannot run that import) it works everywhere.
 */
const nodeModule = process.getBuiltinModule('node:module') as typeof import('node:module');
const { getDocumentProxy, renderPageAsImage } = nodeModule.createRequire(__filename)('unpdf') as typeof Unpdf;

export type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/** pdf.js's names for files that are not a readable PDF (anything else is worth a retry). */
const UNREADABLE = new Set(['InvalidPDFException', 'FormatError', 'UnknownErrorException', 'MissingPDFException', 'UnexpectedResponseException']);

interface TextItem {
  str: string;
  width: number;
  height: number;
  transform: number[];
}

/** Opens a PDF, refusing encrypted, corrupt and over-long ones with the job's failure reasons. */
export async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  let pdf: PdfDocument;
  try {
    // pdf.js takes ownership of (detaches) the buffer it gets: hand it a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, stopAtErrors: false });
  } catch (error) {
    const name = (error as { name?: string }).name ?? '';
    if (name === 'PasswordException') throw new ReportParseFailure('invalid_input', 'The PDF is encrypted.');
    if (UNREADABLE.has(name)) throw new ReportParseFailure('invalid_input', 'The PDF could not be read.');
    throw error;
  }
  if (pdf.numPages > MAX_REPORT_PAGES) {
    await pdf.destroy();
    throw new ReportParseFailure('too_many_pages', `The report has ${pdf.numPages} pages; at most ${MAX_REPORT_PAGES} are read.`);
  }
  return pdf;
}

/** The text layer of every page, as words with boxes in points from the page's top left. */
export async function pdfTextPages(pdf: PdfDocument): Promise<ExtractedPage[]> {
  const pages: ExtractedPage[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const viewport = page.getViewport({ scale: 1 });
    const content = await page.getTextContent();
    const words: ExtractedWord[] = [];
    for (const item of content.items as TextItem[]) {
      if (!item.str || !item.str.trim()) continue;
      words.push(...itemWords(item, viewport.transform));
    }
    pages.push({ width: viewport.width, height: viewport.height, words });
    page.cleanup();
  }
  return pages;
}

/** Splits a text item into words, placing each by its share of the item's characters. */
function itemWords(item: TextItem, vt: number[]): ExtractedWord[] {
  const [a, b, c, d, e, f] = item.transform;
  const fontHeight = Math.hypot(c, d) || Math.hypot(a, b) || item.height;
  const [x0, y0] = apply(vt, e, f);
  const scale = Math.hypot(vt[0], vt[1]);
  const height = fontHeight * scale;
  const width = item.width * scale;
  const perChar = item.str.length ? width / item.str.length : 0;
  const words: ExtractedWord[] = [];
  const re = /\S+/g;
  for (let m = re.exec(item.str); m; m = re.exec(item.str)) {
    words.push({
      text: m[0],
      x: x0 + m.index * perChar,
      // The transform's origin is the baseline; the box's top is about an ascent above it.
      y: y0 - height * 0.8,
      w: m[0].length * perChar,
      h: height,
      confidence: null,
    });
  }
  return words;
}

function apply(m: number[], x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** Pages (1-based numbers, or the first `pages`) rendered to PNG at `dpi`, for OCR of PDFs without a text layer. */
export async function renderPdfPages(bytes: Uint8Array, pages: number | number[], dpi: number): Promise<Buffer[]> {
  const images: Buffer[] = [];
  for (const n of typeof pages === 'number' ? Array.from({ length: pages }, (_, i) => i + 1) : pages) {
    const png = await renderPageAsImage(new Uint8Array(bytes), n, { canvasImport: () => import('@napi-rs/canvas'), scale: dpi / 72 });
    images.push(Buffer.from(png));
  }
  return images;
}
