import fs from 'node:fs';
import path from 'node:path';
import { closeOcr, detectReportFileKind, extractReport, matchReport, parseReport } from '../../src/lab-reports/parsing';
import { labReportCorpus, type Corpus } from '../fixtures/lab-reports/corpus';
import { scoreReport } from '../fixtures/lab-reports/evaluate';
import { curatedLoincCatalogue } from '../helpers/lab-report-catalogue';

/**
 * OCR of the generated scans, images and photos: slow (seconds per page), so a few files here;
 * `npm run bench:lab-reports` reads them all and reports the rates per input kind.
 */
jest.setTimeout(300_000);

const catalogue = curatedLoincCatalogue();
let corpus: Corpus;

const OCR_FILES = ['northwind-photo.jpg', 'cedar-photo.jpg', 'bayfront-photo.jpg', 'summit-scan.pdf'];

beforeAll(async () => {
  // Only the images read here: making the whole image corpus takes minutes.
  corpus = await labReportCorpus(undefined, { imageFiles: [...OCR_FILES, 'unreadable.jpg'] });
}, 900_000);

afterAll(() => closeOcr());

const read = (file: string) => new Uint8Array(fs.readFileSync(path.join(corpus.dir, file)));

it.each(OCR_FILES)('reads %s by OCR: at least 90%% of the results, their values (85%% on photos), and the patient', async (file) => {
  const report = corpus.reports.find((r) => r.file === file);
  if (!report) throw new Error(`${file} is not in the corpus`);
  const bytes = read(file);
  const kind = detectReportFileKind(bytes);
  expect(kind).toBe(file.endsWith('.pdf') ? 'pdf' : file.endsWith('.png') ? 'png' : 'jpeg');
  const doc = await extractReport(bytes, kind ?? 'pdf');
  expect(doc.method).toBe('ocr');
  expect(doc.ocrConfidence).toBeGreaterThan(0.6);
  const score = scoreReport(matchReport(parseReport(doc), catalogue), report);
  expect(score.found / score.truth).toBeGreaterThanOrEqual(0.9);
  expect(score.value / score.truth).toBeGreaterThanOrEqual(0.9);
  expect(score.loinc / score.truth).toBeGreaterThanOrEqual(0.85);
  expect(score.parsed).toBeLessThanOrEqual(score.truth + 1);
  expect(score.misses.filter((m) => /patient_last_name|dob/.test(m))).toEqual([]);
});

it('refuses a blurred, noisy, low-resolution photo as low quality', async () => {
  const bytes = read('unreadable.jpg');
  await expect(extractReport(bytes, 'jpeg')).rejects.toMatchObject({ reason: 'low_quality' });
});
