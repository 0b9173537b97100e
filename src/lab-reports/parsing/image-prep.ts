import sharp, { type Metadata, type Sharp } from 'sharp';
import { ReportParseFailure } from './failure';
import {
  cutToQuad,
  divideByBackground,
  findPageQuad,
  maxFilter,
  pointOnFlattened,
  quadBounds,
  quadTilt,
  textSkew,
  turned,
  warpQuad,
  type GreyImage,
  type Point,
  type Quad,
} from './page-geometry';
import { removeRules } from './table-rules';

export interface PreparedImage {
  /** The page as a binary PGM (P5): tesseract reads it without decoding, sharp writes it without encoding. */
  image: Buffer;
  width: number;
  height: number;
  /** What was done to the page: flattened, turned level by this (null: a photo's sheet, turned by tesseract by `rotateRadians`). */
  steps: {
    flattened: boolean;
    skewDegrees: number | null;
    /** With its table rules taken out: how many runs of ink down its columns were rules (a rule 2 px wide is 2; 0: no box or grid). */
    verticalRules?: number;
  };
  /**
   * The angle tesseract is to turn a photo's sheet by before reading it: the slope of its text,
   * measured here (tesseract turns the page it holds, which costs no resampling here).
   */
  rotateRadians?: number;
  /**
   * The resolution tesseract is to assume, when not its own estimate from the text: a photo's frame
   * says 72 dpi, as the PNG it was handed before did (sharp's default), so it is read word for word
   * as it was; told nothing, tesseract estimates the resolution from the text (~190 dpi there).
   */
  dpi?: number;
  /**
   * A photo's first reading: where a point of this image, as tesseract reads it (turned by
   * `rotateRadians`), lies on the photographed frame (the decoded page, EXIF orientation applied).
   */
  toFrame?: (point: Point) => Point;
  /**
   * A photo's flattened sheet: where a point of the photographed frame lies on this image. With
   * `toFrame` a side column found on a photo's first reading is placed on its second (extract.ts).
   */
  fromFrame?: (point: Point) => Point;
}

/** Pixels not encoded as a file (a scanned PDF page's own image, pdf-scan.ts): grey or RGB. */
export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 1 | 3;
}

/**
 * Longest side OCR gets: a letter page at about 300 dpi, where body text is the 20-30 pixels high
 * tesseract reads best. Smaller images (200 dpi scans, phone photos) are scaled up to it — at 200
 * dpi 9-point text reads measurably worse — and larger photos down, which only saves time.
 */
const TARGET_SIDE = 3300;
/** Below this a page's text is too small to read at any quality. */
const MIN_SIDE = 600;
/** Longest side of the copies the page's outline and its text's slope are measured on. */
const OUTLINE_SIDE = 600;
const SKEW_SIDE = 1200;
/** A text slope below this (degrees) is left alone: resampling costs more than it gains. */
const MIN_SKEW = 0.15;
/**
 * A page outline that is the frame itself, square to it within this (degrees) and closer to its
 * edges than `FRAME_MARGIN`, is no photographed sheet: it is a scan, or a photo as good as one.
 */
const MIN_TILT = 0.3;
/** A run of ink this share of the page's longest side (~110 px at 3300) is a rule, not a glyph. */
const RULE_RUN = 1 / 30;
const FRAME_MARGIN = 0.02;

/**
 * Readies a photo or scan for OCR: EXIF orientation applied, grey, text lines turned level, scaled
 * so text is about the size tesseract reads best, handed over as an uncompressed PGM. This replaces
 * tesseract.js's `rotateAuto`, which ran tesseract's layout analysis a second time on every page
 * (0.6-0.9 s of CPU): the slope of the text is measured here by projection profiles on a small copy
 * (~0.05 s), over the sheet only when a photo shows the surface around it, and a level page (every
 * scan and PNG of the corpus) is not resampled at all.
 *
 * `withoutRules` takes the table rules out of a page that is no photo (its second reading, extract.ts).
 * `flatten` cuts a photographed sheet out along its outline and warps it square (perspective, turn
 * and shear), its light evened and its table rules taken out (`removeRules`): a photo's second
 * reading (extract.ts). Without it, a photo is the sheet's bounding box with the surface painted
 * white, unwarped and scaled, for tesseract to turn by `rotateRadians` (its first reading: the
 * flattened sheet read first misread digits on clean-looking glyphs, and with its contrast
 * stretched it lost the sidebar families' rows; docs/lab-reports.md). Cut and turned by the slope
 * measured here, rather than the whole frame turned by tesseract's `rotateAuto` (a second layout
 * analysis), a photo costs about 16% less CPU and reads about as well (docs/lab-reports.md, session 52).
 * `input` is an image file's bytes, or a scanned PDF page's own pixels (RawImage, pdf-scan.ts).
 * Also measured: contrast stretching (`normalise`) amplifies scanner noise and lost 7 of 8 rows of a
 * 200-dpi scan, and a thresholded (black and white) page lost decimal points, so pages stay grey.
 */
export async function prepareImage(input: Uint8Array | RawImage, options: { flatten?: boolean; withoutRules?: boolean } = {}): Promise<PreparedImage> {
  const raw = 'channels' in input ? input : null;
  const source = () => (raw ? sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } }) : sharp(input as Uint8Array));
  let meta: Metadata;
  try {
    meta = await source().metadata();
  } catch {
    throw new ReportParseFailure('invalid_input', 'The image could not be read.');
  }
  const width = meta.autoOrient?.width ?? meta.width ?? 0;
  const height = meta.autoOrient?.height ?? meta.height ?? 0;
  if (!width || !height) throw new ReportParseFailure('invalid_input', 'The image could not be read.');
  if (Math.max(width, height) < MIN_SIDE) {
    throw new ReportParseFailure('low_quality', `The image is ${width}×${height} pixels, too small to read.`);
  }
  try {
    const { page: decoded, quad } = await once(measured, input, async () => {
      const page = await decodeGrey(source().rotate().grayscale());
      return { page, quad: await pageOutline(page) };
    });
    if (quad && !options.flatten) {
      // The sheet cut out of the frame on white, not flattened, scaled as the whole frame would be
      // (its text the size it was), turned by tesseract by its text's slope. A PGM, as every page:
      // the PNG it was cost an encoding here and a decoding in tesseract, twice when it turns it.
      // Scaled from the grey page already decoded: the same pixels as decoding the file again.
      const sheet = cutToQuad(decoded, quad);
      const scale = TARGET_SIDE / Math.max(width, height);
      const frame = await resized(sheet, Math.round(sheet.width * scale), Math.round(sheet.height * scale));
      const rotateRadians = (-textSkew(await shrink(sheet, SKEW_SIDE)) * Math.PI) / 180;
      // tesseract turns the image it holds about its centre, keeping its size (leptonica's pixRotate).
      const { left, top } = quadBounds(decoded, quad);
      const [sx, sy] = [frame.width / sheet.width, frame.height / sheet.height];
      const centre = { x: frame.width / 2, y: frame.height / 2 };
      const toFrame = (p: Point) => {
        const q = turned(p, -rotateRadians, centre);
        return { x: q.x / sx + left, y: q.y / sy + top };
      };
      return { image: pnm(frame), width: frame.width, height: frame.height, steps: { flattened: false, skewDegrees: null }, dpi: 72, rotateRadians, toFrame };
    }
    let page: GreyImage;
    let skewDegrees: number;
    let fromFrame: PreparedImage['fromFrame'];
    const flattened = quad !== null && options.flatten === true;
    if (quad && flattened) {
      // Scaled first (lanczos) and warped at the size OCR gets: bilinear sampling at the photo's own
      // size blurred thin strokes.
      const [w, h] = flatSize(quad);
      const scale = TARGET_SIDE / Math.max(w, h);
      const large = await resized(decoded, Math.round(decoded.width * scale), Math.round(decoded.height * scale));
      const sx = large.width / decoded.width;
      const sy = large.height / decoded.height;
      const warped = await evenLight(warpQuad(large, quad.map((p) => ({ x: p.x * sx, y: p.y * sy })) as Quad, Math.round(w * scale), Math.round(h * scale)));
      ({ page, skewDegrees } = await level(warped));
      fromFrame = onFlattened(quad, warped, page, skewDegrees);
    } else {
      ({ page, skewDegrees } = await once(levelled, input, () => level(decoded)));
    }
    // A flattened sheet (or a levelled scan) is level and square: its table rules can be found and taken out.
    const taken = flattened || options.withoutRules ? removeRules(page, Math.round(Math.max(page.width, page.height) * RULE_RUN)) : null;
    if (taken) page = taken.page;
    const scale = TARGET_SIDE / Math.max(page.width, page.height);
    if (Math.abs(scale - 1) > 0.1) {
      // (Never a flattened sheet: it is warped at the size OCR gets, and levelling keeps it within 10%.)
      page = await resized(page, Math.round(page.width * scale), Math.round(page.height * scale));
      fromFrame = undefined;
    }
    const steps = { flattened, skewDegrees, ...(taken ? { verticalRules: taken.runs.down } : {}) };
    return { image: pnm(page), width: page.width, height: page.height, steps, ...(fromFrame ? { fromFrame } : {}) };
  } catch (error) {
    if (error instanceof ReportParseFailure) throw error;
    throw new ReportParseFailure('invalid_input', 'The image could not be decoded.');
  }
}

/**
 * What prepareImage decoded and measured of an input, kept as long as the input is: extract.ts
 * prepares a page it reads twice twice, and both start from the same grey page and outline, and a
 * page that is no photo from the same levelled page, so each is made once (0.15-0.35 s of CPU).
 */
const measured = new WeakMap<object, Promise<{ page: GreyImage; quad: Quad | null }>>();
const levelled = new WeakMap<object, Promise<{ page: GreyImage; skewDegrees: number }>>();

function once<T>(memo: WeakMap<object, Promise<T>>, key: object, make: () => Promise<T>): Promise<T> {
  let value = memo.get(key);
  if (!value) {
    value = make();
    memo.set(key, value);
  }
  return value;
}

/**
 * Where a frame's point lies on its flattened sheet: warped from `quad` into `warped`'s rectangle,
 * then, where `level` turned it, turned about its centre onto the canvas sharp grew to hold it.
 */
function onFlattened(quad: Quad, warped: GreyImage, levelled: GreyImage, skewDegrees: number): (point: Point) => Point {
  // sharp turns an image clockwise by a positive angle, as `turned` does; `level` turned it by -skewDegrees.
  const radians = levelled === warped ? 0 : (-skewDegrees * Math.PI) / 180;
  const from = { x: warped.width / 2, y: warped.height / 2 };
  const to = { x: levelled.width / 2, y: levelled.height / 2 };
  return (p) => {
    const q = turned(pointOnFlattened(p, quad, warped.width, warped.height), radians, from);
    return { x: q.x - from.x + to.x, y: q.y - from.y + to.y };
  };
}

/** The page turned level by its text's slope, measured on a small copy (left alone below `MIN_SKEW`). */
async function level(page: GreyImage): Promise<{ page: GreyImage; skewDegrees: number }> {
  const skewDegrees = textSkew(await shrink(page, SKEW_SIDE));
  if (Math.abs(skewDegrees) < MIN_SKEW) return { page, skewDegrees };
  return { page: await decodeGrey(sharp(page.data, { raw: rawOf(page) }).rotate(-skewDegrees, { background: { r: 255, g: 255, b: 255 } })), skewDegrees };
}

/** A grey page scaled to `width` × `height` (lanczos3, sharp's default kernel). */
function resized(page: GreyImage, width: number, height: number): Promise<GreyImage> {
  return decodeGrey(sharp(page.data, { raw: rawOf(page) }).resize(width, height, { kernel: 'lanczos3' }));
}

function rawOf(page: GreyImage): { width: number; height: number; channels: 1 } {
  return { width: page.width, height: page.height, channels: 1 };
}

/**
 * A copy of a prepared PGM page with a rectangle painted paper-white (a side column taken out, so
 * the rest of the page is read without it), or null when the page is no PGM.
 */
export function withRegionBlanked(image: Buffer, region: { left: number; top: number; width: number; height: number }): Buffer | null {
  const header = pgmHeader(image);
  if (!header) return null;
  const { width, start } = header;
  const copy = Buffer.from(image);
  for (let y = region.top; y < region.top + region.height; y++) copy.fill(255, start + y * width + region.left, start + y * width + region.left + region.width);
  return copy;
}

/** Darker than this, a prepared page's pixel is ink (a flattened sheet's paper is evened to near white). */
const INK = 128;

/**
 * The first row from `y` going up (`step` -1) or down (1) where the span `left`…`right` of a
 * prepared PGM page holds ink (`until` 'ink') or is blank ('blank'); the page's edge if none.
 */
export function rowWhere(image: Buffer, span: { left: number; right: number }, y: number, step: 1 | -1, until: 'ink' | 'blank'): number {
  const header = pgmHeader(image);
  if (!header) return Math.round(y);
  const { width, height, start } = header;
  const [from, to] = [Math.max(0, Math.round(span.left)), Math.min(width, Math.round(span.right))];
  let row = Math.max(0, Math.min(height - 1, Math.round(y)));
  for (; row > 0 && row < height - 1; row += step) {
    const inked = image.subarray(start + row * width + from, start + row * width + to).some((v) => v < INK);
    if (inked === (until === 'ink')) break;
  }
  return row;
}

/** A prepared page's size and where its pixels start, from its PGM header (null when it is no PGM). */
function pgmHeader(image: Buffer): { width: number; height: number; start: number } | null {
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(image.subarray(0, 40).toString('latin1'));
  return header && { width: Number(header[1]), height: Number(header[2]), start: header[0].length };
}

function pnm(page: GreyImage): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${page.width} ${page.height}\n255\n`, 'ascii'), page.data]);
}

async function decodeGrey(image: Sharp): Promise<GreyImage> {
  const { data, info } = await image.extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

async function shrink(image: GreyImage, side: number): Promise<GreyImage> {
  const scale = Math.min(1, side / Math.max(image.width, image.height));
  return resized(image, Math.max(1, Math.round(image.width * scale)), Math.max(1, Math.round(image.height * scale)));
}

/**
 * The sheet's corners in the full image when it lies on a surface: tilted or sheared by `MIN_TILT`
 * or more, or with the surface showing around it.
 */
async function pageOutline(page: GreyImage): Promise<Quad | null> {
  const small = await shrink(page, OUTLINE_SIDE);
  const found = findPageQuad(small);
  if (!found) return null;
  const sx = page.width / small.width;
  const sy = page.height / small.height;
  // Inset a little, so no sliver of the surface along an edge is read as ink.
  const cx = found.reduce((s, p) => s + p.x, 0) / 4;
  const cy = found.reduce((s, p) => s + p.y, 0) / 4;
  const quad = found.map((p) => ({ x: (p.x + (cx - p.x) * 0.01) * sx, y: (p.y + (cy - p.y) * 0.01) * sy })) as Quad;
  const nearFrame = quad.every(
    (p) => Math.min(p.x, page.width - p.x) < page.width * FRAME_MARGIN && Math.min(p.y, page.height - p.y) < page.height * FRAME_MARGIN,
  );
  return nearFrame && quadTilt(quad) < MIN_TILT ? null : quad;
}

/** The flattened page's size: its sides' mean lengths. */
function flatSize(q: Quad): [number, number] {
  const d = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.hypot(a.x - b.x, a.y - b.y);
  return [Math.round((d(q[0], q[1]) + d(q[3], q[2])) / 2), Math.round((d(q[0], q[3]) + d(q[1], q[2])) / 2)];
}

/** Divides the page by its paper's brightness (the page shrunk 16 times, text filtered out, blurred). */
async function evenLight(page: GreyImage): Promise<GreyImage> {
  const small = await shrink(page, Math.max(page.width, page.height) / 16);
  const paper = maxFilter(small, 2);
  const background = await decodeGrey(
    sharp(paper.data, { raw: rawOf(paper) })
      .blur(1.5)
      .resize(page.width, page.height, { kernel: 'linear' }),
  );
  return divideByBackground(page, background);
}
