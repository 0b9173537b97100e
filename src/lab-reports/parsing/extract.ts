import { ReportParseFailure, MAX_REPORT_PAGES } from './failure';
import { prepareImage, rowWhere, withRegionBlanked, type PreparedImage, type RawImage } from './image-prep';
import { detectLanguage } from './language';
import { pageLines } from './layout';
import { ocrPage, type OcrModel } from './ocr';
import { UNSPLIT_SURNAME } from './names';
import { parseReport } from './parse';
import { scannedPageImage } from './pdf-scan';
import { openPdf, pdfTextPages, renderPdfPages } from './pdf-text';
import { sideColumnOf } from './side-columns';
import type { ExtractedDocument, ExtractedPage, ExtractedWord, ReportFileKind } from './types';

/** Resolution pages of a PDF without a text layer are rendered at for OCR. */
const RENDER_DPI = 300;
/** Below this mean word confidence an OCR reading is not trusted (`low_quality`). */
export const MIN_OCR_CONFIDENCE = 0.6;
/** A page with fewer lettered words than this in its text layer is treated as a scan. */
const MIN_TEXT_WORDS_PER_PAGE = 8;
/**
 * Letters the English model does not know (a Greek laboratory's labels and test names) come out of
 * it as Latin words it is unsure of: when at least this share of a page's words of three letters or
 * more is read below 50% confidence, the page is read again with the Greek model added (ocr.ts).
 */
const OTHER_SCRIPT_UNSURE_SHARE = 0.3;
/** Half the width of the strip down the middle of a side column's gutter that must stay blank beside it (pixels at ~300 dpi). */
const GUTTER_HALF_WIDTH = 4;
/** Two lines of body text, as a share of a page's height. */
const TWO_LINES = 0.025;

/** Words with positions from a PDF's text layer, or by OCR for images and scanned PDFs. */
export async function extractReport(bytes: Uint8Array, kind: ReportFileKind): Promise<ExtractedDocument> {
  const { method, pages } = kind === 'pdf' ? await extractPdf(bytes) : { method: 'ocr' as const, pages: [await ocrImage(bytes, { firstPage: true })] };
  const words = pages.flatMap((page) => page.words);
  let ocrConfidence: number | null = null;
  if (method === 'ocr') {
    const scored = scoredWords(words);
    ocrConfidence = meanConfidence(scored);
    if (scored.length < 10 || ocrConfidence < MIN_OCR_CONFIDENCE) {
      throw new ReportParseFailure('low_quality', `The text could not be read reliably (OCR confidence ${Math.round(ocrConfidence * 100)}%).`);
    }
  }
  const language = detectLanguage(words.map((w) => w.text));
  if (language !== null && language !== 'en') {
    throw new ReportParseFailure('not_english', `The report is in another language (${language}); only English reports are read.`);
  }
  return { kind, method, pages, ocrConfidence, language };
}

async function extractPdf(bytes: Uint8Array): Promise<{ method: 'text' | 'ocr'; pages: ExtractedPage[] }> {
  const pdf = await openPdf(bytes);
  try {
    const pages = await pdfTextPages(pdf);
    const lettered = pages.map((page) => page.words.filter((w) => /\p{L}{2}/u.test(w.text)).length);
    if (lettered.every((count) => count >= MIN_TEXT_WORDS_PER_PAGE)) return { method: 'text', pages };
    const ocrPages: ExtractedPage[] = [];
    for (const [index, page] of pages.entries()) {
      // Pages that have a text layer keep it; only the scanned ones are read by OCR, from the scan's
      // own image when that gives the pixels a rendering would (pdf-scan.ts), else rendered.
      if (lettered[index] >= MIN_TEXT_WORDS_PER_PAGE) {
        ocrPages.push(page);
        continue;
      }
      const scan = await scannedPageImage(pdf, index + 1, RENDER_DPI);
      const image = scan ?? (await renderPdfPages(bytes, [index + 1], RENDER_DPI))[0];
      ocrPages.push(await ocrImage(image, { firstPage: index === 0 }));
    }
    return { method: 'ocr', pages: ocrPages };
  } finally {
    await pdf.destroy();
  }
}

/**
 * A page image by OCR. A page prepareImage levelled (scans, PNGs, JPEGs) whose reading shows a
 * side column is read again by columns (byColumns). A first page whose reading leaves the patient
 * unread (no results, or no first name, last name or date of birth) is read a second time, its
 * table rules taken out (a photo: the sheet flattened too, prepareImage's `flatten`): tesseract's
 * single-block layout analysis takes text boxed in by rules for part of the rules' blob, and on a
 * tilted photo mixes a sidebar's lines with the table's. A page that is no photo is read again
 * only when rules run down it (a box or a grid): rules that only run across box nothing in. The
 * first reading is the page and the second its `alternative`, which parseReport takes the rows only
 * it found and the metadata fields it is surer of from. Only unsure pages pay for it: a second
 * reading costs about as much as the first.
 * A photo whose first reading shows a side column by its layout (its small labels garbled,
 * side-columns.ts `byLayout`) has that column placed on the flattened sheet (`placedOn`) and read
 * apart there, as a level scan's is; a flattened photo read whole for an unread patient whose
 * reading shows a side column is read by columns too.
 * A photo's first reading is the sheet unwarped, turned by tesseract by its text's slope
 * (prepareImage's `rotateRadians`): the flattened sheet read first misread more values
 * (docs/lab-reports.md).
 */
async function ocrImage(bytes: Uint8Array | RawImage, options: { firstPage: boolean }): Promise<ExtractedPage> {
  const image = await prepareImage(bytes);
  const photo = image.steps.skewDegrees === null;
  const { read, model } = await firstReading(image);
  const page = (!photo && (await byColumns(image, read, { model }))) || read;
  if (!options.firstPage) return page;
  // A photo's sidebar, read as one block with the table, loses labels even where the patient is read.
  const photoSidebar = photo ? sideColumnOf(pageLines(page, 0), { byLayout: true }) : null;
  if (!photoSidebar && !patientUnread(page)) return page;
  const other = await prepareImage(bytes, photo ? { flatten: true } : { withoutRules: true });
  if (photo && !other.steps.flattened) return page;
  // Measured: pages whose rules all run across read the same without them (docs/lab-reports.md, session 54).
  if (!photo && !other.steps.verticalRules) return page;
  // The sidebar found on the first reading, placed on the flattened sheet and read apart there:
  // the whole sheet is not read first to find it again (that reading cost ~1.5 s, and was dropped).
  const placed = photoSidebar && placedOn(other, image, photoSidebar);
  const apart = placed && (await readColumnApart(other, placed, model));
  if (apart) return { ...page, alternative: apart };
  const otherRead = await ocrPage(other.image, other, { model });
  // A flattened photo showing a side column, its labels garbled as one block with the table: read by columns too.
  const { width, height, words } = (photo && (await byColumns(other, otherRead, { byLayout: true, model }))) || otherRead;
  return { ...page, alternative: { width, height, words } };
}

/**
 * The page read with the English model; when that reading shows letters of another script
 * (OTHER_SCRIPT_UNSURE_SHARE), read again with the Greek model added, and the reading with the
 * higher mean confidence kept, with its model for the page's further readings.
 */
async function firstReading(image: PreparedImage): Promise<{ read: ExtractedPage; model: OcrModel }> {
  const { rotateRadians } = image;
  const english = await ocrPage(image.image, image, { rotateRadians });
  const lettered = english.words.filter((w) => w.confidence !== null && /\p{L}{3}/u.test(w.text));
  const unsure = lettered.filter((w) => (w.confidence ?? 0) < 0.5).length;
  if (lettered.length === 0 || unsure / lettered.length < OTHER_SCRIPT_UNSURE_SHARE) return { read: english, model: 'eng' };
  const withGreek = await ocrPage(image.image, image, { rotateRadians, model: 'eng+ell' });
  const surer = meanConfidence(scoredWords(withGreek.words)) > meanConfidence(scoredWords(english.words));
  return surer ? { read: withGreek, model: 'eng+ell' } : { read: english, model: 'eng' };
}

/** The words an OCR confidence is taken over: those with a letter or digit and a confidence. */
function scoredWords(words: ExtractedWord[]): ExtractedWord[] {
  return words.filter((w) => w.confidence !== null && /[\p{L}\p{N}]/u.test(w.text));
}

function meanConfidence(words: ExtractedWord[]): number {
  return words.length ? words.reduce((sum, w) => sum + (w.confidence ?? 0), 0) / words.length : 0;
}

/**
 * A page whose reading shows a side column (side-columns.ts: a patient panel beside the results)
 * read again in two: the column alone, and the page with the column painted out. This reading is
 * the page: read as one block, the column's lines and the table's were taken for one line where
 * they print at different heights, and cells of both were lost or garbled. (Reading the rest as
 * rectangles instead lost a masthead: tesseract misread large text in a strip of its own height.)
 */
async function byColumns(image: PreparedImage, page: ExtractedPage, options: { byLayout?: boolean; model?: OcrModel } = {}): Promise<ExtractedPage | null> {
  const side = sideColumnOf(pageLines(page, 0), options);
  return side && readColumnApart(image, side, options.model);
}

type SideColumn = NonNullable<ReturnType<typeof sideColumnOf>>;

/** The page read in two: the side column alone, and the rest with the column painted out. */
async function readColumnApart(image: PreparedImage, side: SideColumn, model?: OcrModel): Promise<ExtractedPage | null> {
  const top = Math.max(0, Math.round(side.top));
  const bottom = Math.min(image.height, Math.round(side.bottom));
  const gutter = Math.round(side.gutter);
  const column = side.band === 'left' ? { left: 0, width: gutter } : { left: gutter, width: image.width - gutter };
  const region = { ...column, top, height: bottom - top };
  if (region.width <= 0 || region.height <= 0) return null;
  const rest = withRegionBlanked(image.image, region);
  if (!rest) return null;
  const band = await ocrPage(image.image, image, { rectangle: region, model });
  const others = await ocrPage(rest, image, { model });
  return { width: image.width, height: image.height, words: [...band.words, ...others.words] };
}

/**
 * A photo's side column found on its first reading (`from`), placed on its flattened sheet (`to`):
 * its gutter's ends and its top and bottom carried through the photographed frame. The flattened
 * sheet is level, so the gutter is the mean of its ends' places.
 */
function placedOn(to: PreparedImage, from: PreparedImage, side: SideColumn): SideColumn | null {
  const { toFrame } = from;
  const { fromFrame } = to;
  if (!toFrame || !fromFrame) return null;
  const place = (x: number, y: number) => fromFrame(toFrame({ x, y }));
  const [upper, lower] = [place(side.gutter, side.top), place(side.gutter, side.bottom)];
  const gutter = (upper.x + lower.x) / 2;
  // The first reading may lose the column's first or last lines (a tilted sheet's lines run into
  // the table's): the column is taken up to where ink crosses the gutter, and down by at most two
  // lines (under a sidebar the blank often runs to the page's foot); each end then moved to a
  // blank row of the column's side, so no line is cut through.
  const strip = { left: gutter - GUTTER_HALF_WIDTH, right: gutter + GUTTER_HALF_WIDTH + 1 };
  const columnSide = side.band === 'left' ? { left: 0, right: gutter } : { left: gutter, right: to.width };
  const crossedAbove = rowWhere(to.image, strip, upper.y, -1, 'ink');
  const top = Math.min(upper.y, rowWhere(to.image, columnSide, crossedAbove, 1, 'blank'));
  const crossedBelow = Math.min(rowWhere(to.image, strip, lower.y, 1, 'ink'), lower.y + to.height * TWO_LINES);
  const bottom = Math.max(lower.y, rowWhere(to.image, columnSide, crossedBelow, -1, 'blank'));
  return { band: side.band, gutter, top, bottom };
}

/**
 * The page read alone gives no results, or leaves the patient's first or last name or date of
 * birth unread. A surname left out of a name read whole (UNSPLIT_SURNAME) is not unread: a second
 * reading would print the same name.
 */
function patientUnread(page: ExtractedPage): boolean {
  try {
    const { metadata } = parseReport({ kind: 'png', method: 'ocr', pages: [page], ocrConfidence: null, language: null });
    const surnameUnread = metadata.patient_last_name === null && !metadata.confidence.patient_last_name.reason?.startsWith(UNSPLIT_SURNAME);
    return metadata.patient_first_name === null || surnameUnread || metadata.dob === null;
  } catch {
    return true;
  }
}

export { MAX_REPORT_PAGES };
