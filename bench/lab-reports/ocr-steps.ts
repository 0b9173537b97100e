/**
 * Where an OCR'd page's CPU goes, step by step (process CPU, OCR worker threads included, so
 * "seconds of one core"): preparing the image, the first reading (a photo's sheet turned by
 * tesseract), the parse that decides whether a second reading is needed, and that second
 * reading (its image prepared, then recognised) — measured for every file, whether or not
 * extractReport would read it twice. The first file also pays for starting the OCR worker: pass
 * a file to warm up with first.
 *
 *   npm run bench:lab-reports:steps -- <image or photo files…>
 */
import fs from 'node:fs';
import path from 'node:path';
import { closeOcr, parseReport } from '../../src/lab-reports/parsing';
import { prepareImage } from '../../src/lab-reports/parsing/image-prep';
import { ocrPage } from '../../src/lab-reports/parsing/ocr';

const cpu = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
};

async function main(files: string[]): Promise<void> {
  for (const file of files) {
    const bytes = new Uint8Array(fs.readFileSync(file));
    const steps: Record<string, number> = {};
    let last = cpu();
    const lap = (name: string) => {
      const now = cpu();
      steps[name] = Number((now - last).toFixed(2));
      last = now;
    };
    const image = await prepareImage(bytes);
    lap('prepare');
    const photo = image.steps.skewDegrees === null;
    const page = await ocrPage(image.image, image, { rotateRadians: image.rotateRadians });
    lap(photo ? 'read (sheet turned by tesseract)' : 'read');
    try {
      parseReport({ kind: 'png', method: 'ocr', pages: [page], ocrConfidence: null, language: null });
    } catch {
      // A page with no results is read a second time too; its cost is the same.
    }
    lap('parse (the gate)');
    const other = await prepareImage(bytes, photo ? { flatten: true } : { withoutRules: true });
    lap(photo ? 'prepare second (flatten, rules out)' : 'prepare second (rules out)');
    await ocrPage(other.image, other);
    lap('read second');
    console.log(path.basename(file), JSON.stringify(steps));
  }
  await closeOcr();
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
