import path from 'node:path';
import os from 'node:os';
import { createScheduler, createWorker, OEM, type Scheduler } from 'tesseract.js';
import type { ExtractedPage, ExtractedWord } from './types';

/**
 * OCR with tesseract.js: its workers are worker threads, so recognition never runs on the event
 * loop. The English model comes from the `@tesseract.js-data/eng` package (langPath points at it,
 * caching is off), so nothing is downloaded at run time.
 */
const LANG_PATH = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0');

let scheduler: Promise<Scheduler> | null = null;
let workerCount = 1;

/** How many OCR worker threads to run (each uses about one core while it recognises a page). */
export function configureOcr(options: { workers: number }): void {
  workerCount = Math.max(1, Math.min(options.workers, os.availableParallelism()));
}

function ocrScheduler(): Promise<Scheduler> {
  scheduler ??= (async () => {
    const created = createScheduler();
    for (let i = 0; i < workerCount; i++) {
      const worker = await createWorker('eng', OEM.LSTM_ONLY, { langPath: LANG_PATH, gzip: true, cacheMethod: 'none' });
      // Single-block page segmentation keeps table rows on one line; sparse text loses order.
      await worker.setParameters({ preserve_interword_spaces: '1' });
      created.addWorker(worker);
    }
    return created;
  })();
  return scheduler;
}

/** Ends the OCR worker threads (tests and shutdown); the next OCR starts them again. */
export async function closeOcr(): Promise<void> {
  const current = scheduler;
  scheduler = null;
  if (current) await (await current).terminate();
}

interface OcrWord {
  text: string;
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
}

export interface OcrOptions {
  /** tesseract's own levelling (a second layout analysis: 0.6-0.9 s a page), for a page prepareImage did not level (a photo's whole frame). */
  rotateAuto?: boolean;
  /** Only this rectangle of the image (a side column, extract.ts); word boxes stay in the whole image's pixels. */
  rectangle?: { left: number; top: number; width: number; height: number };
}

/**
 * Recognises one page image (a PGM from prepareImage, or PNG or JPEG bytes) into words with boxes in
 * pixels; `size` is the image's, with the resolution tesseract is to assume when it says one
 * (PreparedImage's `dpi`), else tesseract estimates it.
 */
export async function ocrPage(image: Buffer, size: { width: number; height: number; dpi?: number }, options: OcrOptions = {}): Promise<ExtractedPage> {
  const s = await ocrScheduler();
  const { rotateAuto, rectangle } = options;
  const { dpi } = size;
  // tesseract.js passes options it does not know to tesseract as parameters, for this job only.
  const parameters = { rotateAuto: rotateAuto === true, ...(rectangle ? { rectangle } : {}), ...(dpi ? { user_defined_dpi: String(dpi) } : {}) };
  const result = await s.addJob('recognize', image, parameters, { blocks: true, text: false });
  const words: ExtractedWord[] = [];
  for (const block of result.data.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        for (const word of line.words as OcrWord[]) {
          const text = word.text.trim();
          if (!text) continue;
          const { x0, y0, x1, y1 } = word.bbox;
          words.push({ text, x: x0, y: y0, w: x1 - x0, h: y1 - y0, confidence: word.confidence / 100 });
        }
      }
    }
  }
  return { width: size.width, height: size.height, words };
}
