import sharp, { type Metadata } from 'sharp';
import { ReportParseFailure } from './failure';

export interface PreparedImage {
  png: Buffer;
  width: number;
  height: number;
}

/**
 * Longest side OCR gets: a letter page at about 300 dpi, where body text is the 20-30 pixels high
 * tesseract reads best. Smaller images (200 dpi scans, phone photos) are scaled up to it — at 200
 * dpi 9-point text reads measurably worse — and larger photos down, which only saves time.
 */
const TARGET_SIDE = 3300;
/** Below this a page's text is too small to read at any quality. */
const MIN_SIDE = 600;

/**
 * Readies a photo or scan for OCR: EXIF orientation applied, grey, and scaled so text is about
 * the size tesseract reads best. Measured on the corpus (bench:lab-reports): contrast stretching
 * (`normalise`) amplifies scanner noise and lost 7 of 8 rows of a 200-dpi scan; a median filter
 * with a threshold was no better than the plain grey image on scans and photos, so neither is
 * used by default (`threshold` stays available for callers that want it).
 */
export async function prepareImage(bytes: Uint8Array, options: { threshold?: boolean } = {}): Promise<PreparedImage> {
  let meta: Metadata;
  try {
    meta = await sharp(bytes).metadata();
  } catch {
    throw new ReportParseFailure('invalid_input', 'The image could not be read.');
  }
  const width = meta.autoOrient?.width ?? meta.width ?? 0;
  const height = meta.autoOrient?.height ?? meta.height ?? 0;
  if (!width || !height) throw new ReportParseFailure('invalid_input', 'The image could not be read.');
  if (Math.max(width, height) < MIN_SIDE) {
    throw new ReportParseFailure('low_quality', `The image is ${width}×${height} pixels, too small to read.`);
  }
  const scale = TARGET_SIDE / Math.max(width, height);
  let pipeline = sharp(bytes).rotate().grayscale();
  if (Math.abs(scale - 1) > 0.1) pipeline = pipeline.resize(Math.round(width * scale), Math.round(height * scale), { kernel: 'lanczos3' });
  if (options.threshold) pipeline = pipeline.median(3).threshold(150);
  try {
    const { data, info } = await pipeline.png({ compressionLevel: 1 }).toBuffer({ resolveWithObject: true });
    return { png: data, width: info.width, height: info.height };
  } catch {
    throw new ReportParseFailure('invalid_input', 'The image could not be decoded.');
  }
}
