import fs from 'node:fs';
import path from 'node:path';
import { closeOcr, detectReportFileKind, extractReport, matchReport, parseReport, type ExtractedDocument } from '../../src/lab-reports/parsing';
import { labReportCorpus, type Corpus, type CorpusReport } from '../fixtures/lab-reports/corpus';
import { scoreReport } from '../fixtures/lab-reports/evaluate';
import { RECORDED_OCR_FILES, imageTruth, recordedOcr } from '../fixtures/lab-reports/ocr-readings';
import { curatedLoincCatalogue } from '../helpers/lab-report-catalogue';

/**
 * OCR of the generated scans, images and photos: slow (seconds of CPU per page), so one photo is
 * read by tesseract here, and the other files' readings are tesseract's recorded ones
 * (test/fixtures/lab-reports/ocr, `npm run fixtures:ocr`): those tests are about parsing what OCR
 * returns. `npm run bench:lab-reports` reads them all and reports the rates per input kind.
 */
jest.setTimeout(300_000);

const catalogue = curatedLoincCatalogue();
let corpus: Corpus;

/** Read by tesseract in this test. */
const OCR_FILE = 'northwind-photo.jpg';
/** A patient panel in a sidebar beside the results (family Q), read by tesseract in this test. */
const SIDEBAR_FILE = 'fjordvale.png';
/** The same sidebar photographed: the panel found on the first reading is read apart on the flattened sheet. */
const SIDEBAR_PHOTO = 'fjordvale-photo.jpg';
/** A Greek laboratory's report in Greek and English (family BC), read by tesseract in this test. */
const GREEK_FILE = 'akropolis.jpg';

beforeAll(async () => {
  // Only the images read here: making the whole image corpus takes minutes.
  corpus = await labReportCorpus(undefined, { imageFiles: [OCR_FILE, SIDEBAR_FILE, SIDEBAR_PHOTO, GREEK_FILE, 'unreadable.jpg'] });
}, 900_000);

afterAll(() => closeOcr());

const read = (file: string) => new Uint8Array(fs.readFileSync(path.join(corpus.dir, file)));

/** At least 90% of the results, their values (85% of their LOINC codes), and the patient. */
function expectReadWell(doc: ExtractedDocument, report: CorpusReport): void {
  expect(doc.method).toBe('ocr');
  expect(doc.ocrConfidence).toBeGreaterThan(0.6);
  const score = scoreReport(matchReport(parseReport(doc), catalogue), report);
  expect(score.found / score.truth).toBeGreaterThanOrEqual(0.9);
  expect(score.value / score.truth).toBeGreaterThanOrEqual(0.9);
  expect(score.loinc / score.truth).toBeGreaterThanOrEqual(0.85);
  expect(score.parsed).toBeLessThanOrEqual(score.truth + 1);
  expect(score.misses.filter((m) => /patient_last_name|dob/.test(m))).toEqual([]);
}

it(`reads ${OCR_FILE} by OCR: at least 90% of the results, their values (85% on photos), and the patient`, async () => {
  const report = corpus.reports.find((r) => r.file === OCR_FILE);
  if (!report) throw new Error(`${OCR_FILE} is not in the corpus`);
  // The truth test/fixtures/lab-reports/ocr-readings.ts derives for the recorded files is the corpus's.
  expect(imageTruth(corpus, OCR_FILE)).toEqual(report);
  const bytes = read(OCR_FILE);
  const kind = detectReportFileKind(bytes);
  expect(kind).toBe('jpeg');
  expectReadWell(await extractReport(bytes, kind ?? 'pdf'), report);
});

it(`reads the sidebar of ${SIDEBAR_FILE} apart from the results beside it: every row, and the whole patient panel`, async () => {
  const report = corpus.reports.find((r) => r.file === SIDEBAR_FILE);
  if (!report) throw new Error(`${SIDEBAR_FILE} is not in the corpus`);
  const score = scoreReport(matchReport(parseReport(await extractReport(read(SIDEBAR_FILE), 'png')), catalogue), report);
  expect(score.found).toBe(score.truth);
  expect(score.value).toBe(score.truth);
  // Read as one block with the table, the panel lost its date of birth, sample and doctor. (Its
  // surname's `rn` is still read as `m`, `Hemandez`: OCR of the value itself, so not asserted.)
  expect(score.misses.filter((m) => /patient_first_name|dob|specimen|provider|date_/.test(m))).toEqual([]);
});

it(`reads the sidebar of ${SIDEBAR_PHOTO}, found on its first reading, apart on the flattened sheet: every row, and the patient panel`, async () => {
  const report = corpus.reports.find((r) => r.file === SIDEBAR_PHOTO);
  if (!report) throw new Error(`${SIDEBAR_PHOTO} is not in the corpus`);
  const doc = await extractReport(read(SIDEBAR_PHOTO), 'jpeg');
  expect(doc.pages[0].alternative).toBeDefined();
  const score = scoreReport(matchReport(parseReport(doc), catalogue), report);
  expect(score.found).toBe(score.truth);
  expect(score.value).toBe(score.truth);
  // (`Hemandez` again: the value's own OCR, not asserted.)
  expect(score.misses.filter((m) => /patient_first_name|dob|specimen|provider|date_/.test(m))).toEqual([]);
});

it(`reads the Greek of ${GREEK_FILE} with the Greek model: at least 90% of the results, their values, and the patient`, async () => {
  const report = corpus.reports.find((r) => r.file === GREEK_FILE);
  if (!report) throw new Error(`${GREEK_FILE} is not in the corpus`);
  const doc = await extractReport(read(GREEK_FILE), 'jpeg');
  // Read by the English model alone, the Greek came out as Latin letters (`Awoogatpivn` for
  // `Αιμοσφαιρίνη`, `MAMAAAKHZ` for `ΠΑΠΑΔΑΚΗΣ`) and 4 of the 22 results were found.
  expect(doc.pages[0].words.map((w) => w.text)).toEqual(expect.arrayContaining(['Αιμοσφαιρίνη', 'ΠΑΠΑΔΑΚΗΣ']));
  expectReadWell(doc, report);
});

it.each(RECORDED_OCR_FILES)('parses the recorded OCR reading of %s: at least 90%% of the results, their values (85%% on photos), and the patient', (file) => {
  expectReadWell(recordedOcr(file), imageTruth(corpus, file));
});

it('refuses a blurred, noisy, low-resolution photo as low quality', async () => {
  const bytes = read('unreadable.jpg');
  await expect(extractReport(bytes, 'jpeg')).rejects.toMatchObject({ reason: 'low_quality' });
});
