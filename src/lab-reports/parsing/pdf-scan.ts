import type * as Unpdf from 'unpdf';
import type { PdfDocument } from './pdf-text';
import type { RawImage } from './image-prep';

const nodeModule = process.getBuiltinModule('node:module') as typeof import('node:module');
const { getResolvedPDFJS } = nodeModule.createRequire(__filename)('unpdf') as typeof Unpdf;

type Matrix = [number, number, number, number, number, number];

/** What pdf.js hands over for a decoded image (`page.objs`): RGB_24BPP is `kind` 2. */
interface PdfImage {
  width: number;
  height: number;
  kind?: number;
  interpolate?: boolean;
  data?: Uint8Array | Uint8ClampedArray;
  bitmap?: unknown;
}

const RGB_24BPP = 2;
/**
 * pdf.js draws an image unsmoothed (nearest neighbour) when it enlarges it by more than this
 * (96/72, its CSS pixels per point at a pixel ratio of 1; `getImageSmoothingEnabled`), unless the
 * image asks to be interpolated: a 200-dpi scan rendered at 300 dpi is each pixel repeated.
 */
const UNSMOOTHED_SCALE = 96 / 72;
/**
 * Up to this enlargement (a 90-dpi scan at 300 dpi) the repeated pixels were checked to be pdf.js's
 * own; at 4.2 (72 dpi) a few thousand pixels of 8 million differed (its rounding, not found).
 */
const MAX_REPEAT = 300 / 90;

/**
 * A scanned page's own image at `dpi`, pixel for pixel what pdf.js's rendering of the page gives
 * (renderPdfPages), without drawing the page on a canvas and encoding it to a PNG that sharp then
 * decodes (about a second of CPU a page at 300 dpi). Only for a page that is nothing but one RGB
 * image covering it upright, which pdf.js either enlarges unsmoothed or draws at its own size:
 * the image's pixels are repeated as pdf.js repeats them. Any other page is null (rendered).
 */
export async function scannedPageImage(pdf: PdfDocument, pageNumber: number, dpi: number): Promise<RawImage | null> {
  const { OPS } = await getResolvedPDFJS();
  const page = await pdf.getPage(pageNumber);
  const viewport = page.getViewport({ scale: dpi / 72 });
  const { fnArray, argsArray } = await page.getOperatorList();
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const saved: Matrix[] = [];
  let painted: { key: string; ctm: Matrix } | null = null;
  for (const [i, op] of fnArray.entries()) {
    const args = argsArray[i] as unknown[];
    if (op === OPS.save) saved.push(ctm);
    else if (op === OPS.restore) ctm = saved.pop() ?? ctm;
    else if (op === OPS.transform) ctm = multiply(ctm, args as Matrix);
    else if (op === OPS.paintImageXObject && !painted) painted = { key: args[0] as string, ctm };
    else if (op !== OPS.dependency) return null;
  }
  if (!painted) return null;
  const image = await new Promise<PdfImage | null>((resolve) => (painted.key.startsWith('g_') ? page.commonObjs : page.objs).get(painted.key, resolve));
  if (!image?.data || image.bitmap || image.kind !== RGB_24BPP || image.interpolate) return null;
  const { width: sw, height: sh, data } = image;
  if (data.length !== sw * sh * 3) return null;
  // The canvas pdf.js renders into (its size truncated to whole pixels), and where the image's unit
  // square lands on it: upright (top row first, not mirrored or turned), covering it edge to edge.
  const width = Math.floor(viewport.width);
  const height = Math.floor(viewport.height);
  const [a, b, c, d, e, f] = multiply(viewport.transform as Matrix, painted.ctm);
  const near = (x: number, y: number) => Math.abs(x - y) < 0.5;
  if (!near(b, 0) || !near(c, 0) || !near(e, 0) || !near(a + e, width) || !near(d + f, 0) || !near(f, height)) return null;
  const scaleX = width / sw;
  const scaleY = height / sh;
  const sameSize = sw === width && sh === height;
  if (!sameSize && (Math.min(scaleX, scaleY) <= UNSMOOTHED_SCALE || Math.max(scaleX, scaleY) > MAX_REPEAT)) return null;
  return enlarged(data, sw, sh, width, height);
}

/**
 * The image enlarged by repeating pixels as pdf.js's canvas does: each output pixel takes the
 * source pixel under its centre, the upper or left one when the centre is on their edge (checked
 * pixel for pixel against pdf.js's rendering of scans at 90 to 224 dpi). One grey channel when
 * the image is grey (a scan's usual), else RGB.
 */
function enlarged(data: Uint8Array | Uint8ClampedArray, sw: number, sh: number, width: number, height: number): RawImage {
  let grey = true;
  for (let i = 0; i < data.length && grey; i += 3) grey = data[i] === data[i + 1] && data[i] === data[i + 2];
  const channels = grey ? 1 : 3;
  const out = new Uint8Array(width * height * channels);
  const columns = new Int32Array(width);
  const under = (x: number, n: number, size: number) => Math.min(n - 1, Math.max(0, Math.ceil(((x + 0.5) * n) / size) - 1));
  for (let x = 0; x < width; x++) columns[x] = under(x, sw, width) * 3;
  for (let y = 0; y < height; y++) {
    const row = under(y, sh, height) * sw * 3;
    const at = y * width * channels;
    if (grey) {
      for (let x = 0; x < width; x++) out[at + x] = data[row + columns[x]];
    } else {
      for (let x = 0; x < width; x++) {
        const from = row + columns[x];
        out[at + x * 3] = data[from];
        out[at + x * 3 + 1] = data[from + 1];
        out[at + x * 3 + 2] = data[from + 2];
      }
    }
  }
  return { data: out, width, height, channels };
}

/** The matrix that applies `n` and then `m` (pdf.js's Util.transform). */
function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[2] * n[1],
    m[1] * n[0] + m[3] * n[1],
    m[0] * n[2] + m[2] * n[3],
    m[1] * n[2] + m[3] * n[3],
    m[0] * n[4] + m[2] * n[5] + m[4],
    m[1] * n[4] + m[3] * n[5] + m[5],
  ];
}
