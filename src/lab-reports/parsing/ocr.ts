import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { createScheduler, createWorker, OEM, type Scheduler } from 'tesseract.js';
import type { ExtractedPage, ExtractedWord } from './types';

/**
 * OCR with tesseract.js: its workers are worker threads, so recognition never runs on the event
 * loop. The models come from the `@tesseract.js-data/*` packages (caching is off), so nothing is
 * downloaded at run time.
 *
 * A page is read with the English model; `eng+ell` adds the Greek one for a page whose English
 * reading shows letters the English model does not know (extract.ts): Greek laboratories print
 * bilingual reports. Tesseract tries the second model on words the first reads badly, so English
 * words read as before, but each page costs about twice the CPU: only pages that need it pay.
 */
export type OcrModel = 'eng' | 'eng+ell';

/** Each model's package (resolved by name, so the dependency checks see them). */
const MODEL_PACKAGES = {
  eng: path.dirname(require.resolve('@tesseract.js-data/eng/package.json')),
  ell: path.dirname(require.resolve('@tesseract.js-data/ell/package.json')),
};

/** A model's traineddata file in its package (the 4.0.0 models, as tesseract.js loads for LSTM only). */
function modelFile(language: keyof typeof MODEL_PACKAGES): string {
  return path.join(MODEL_PACKAGES[language], '4.0.0', `${language}.traineddata.gz`);
}

const schedulers = new Map<OcrModel, Promise<Scheduler>>();
let workerCount = 1;

/** How many OCR worker threads to run (each uses about one core while it recognises a page). */
export function configureOcr(options: { workers: number }): void {
  workerCount = Math.max(1, Math.min(options.workers, os.availableParallelism()));
}

function ocrScheduler(model: OcrModel): Promise<Scheduler> {
  let scheduler = schedulers.get(model);
  if (!scheduler) {
    scheduler = (async () => {
      const created = createScheduler();
      const folder = modelFolder(model);
      try {
        for (let i = 0; i < workerCount; i++) {
          const worker = await createWorker(model, OEM.LSTM_ONLY, { langPath: folder, gzip: true, cacheMethod: 'none' });
          // Single-block page segmentation keeps table rows on one line; sparse text loses order.
          await worker.setParameters({ preserve_interword_spaces: '1' });
          created.addWorker(worker);
        }
      } finally {
        // Each worker has read its models by now.
        fs.rmSync(folder, { recursive: true, force: true });
      }
      return created;
    })();
    schedulers.set(model, scheduler);
  }
  return scheduler;
}

/**
 * A folder of links to the model's traineddata files: tesseract.js reads all of a worker's models
 * from one folder (`langPath`), and they come in a package each. (Its other way, models handed
 * over as bytes, is broken in 7.0.0: the bytes are passed on as the model's name.)
 */
function modelFolder(model: OcrModel): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'labflow-ocr-models-'));
  for (const language of model.split('+') as (keyof typeof MODEL_PACKAGES)[]) {
    fs.symlinkSync(modelFile(language), path.join(folder, `${language}.traineddata.gz`));
  }
  return folder;
}

/** Ends the OCR worker threads (tests and shutdown); the next OCR starts them again. */
export async function closeOcr(): Promise<void> {
  const current = [...schedulers.values()];
  schedulers.clear();
  for (const scheduler of current) await (await scheduler).terminate();
}

interface OcrWord {
  text: string;
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
}

export interface OcrOptions {
  /** The angle tesseract turns the page by before reading it (PreparedImage's `rotateRadians`: a photo's sheet). */
  rotateRadians?: number;
  /** Only this rectangle of the image (a side column, extract.ts); word boxes stay in the whole image's pixels. */
  rectangle?: { left: number; top: number; width: number; height: number };
  /** The model to read with (English unless the page showed another script). */
  model?: OcrModel;
}

/**
 * Recognises one page image (a PGM from prepareImage, or PNG or JPEG bytes) into words with boxes in
 * pixels; `size` is the image's, with the resolution tesseract is to assume when it says one
 * (PreparedImage's `dpi`), else tesseract estimates it.
 */
export async function ocrPage(image: Buffer, size: { width: number; height: number; dpi?: number }, options: OcrOptions = {}): Promise<ExtractedPage> {
  const { rotateRadians, rectangle, model = 'eng' } = options;
  const s = await ocrScheduler(model);
  const { dpi } = size;
  // tesseract.js passes options it does not know to tesseract as parameters, for this job only.
  const parameters = { ...(rotateRadians ? { rotateRadians } : {}), ...(rectangle ? { rectangle } : {}), ...(dpi ? { user_defined_dpi: String(dpi) } : {}) };
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
