import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { prepareImage } from '../../src/lab-reports/parsing/image-prep';
import { scannedPageImage } from '../../src/lab-reports/parsing/pdf-scan';
import { openPdf, renderPdfPages } from '../../src/lab-reports/parsing/pdf-text';

/**
 * A scanned PDF page is read from its own image (pdf-scan.ts) instead of pdf.js's rendering, only
 * where that gives tesseract the very pixels the rendering gave: the same reading, for less CPU.
 */
jest.setTimeout(120_000);

/** A letter page as a scanner makes it at `dpi`: grey text on white, JPEG, no text layer. */
async function scan(dpi: number, options: { text?: boolean } = {}): Promise<Uint8Array> {
  const width = Math.round(8.5 * dpi);
  const height = Math.round(11 * dpi);
  const lines = Array.from(
    { length: 30 },
    (_, i) => `<text x="${dpi}" y="${dpi + i * dpi * 0.3}" font-size="${dpi / 7}">Hemoglobin A1c ${i}.${i % 7} % 4.0-5.6</text>`,
  );
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${lines.join('')}</svg>`;
  const image = await sharp(Buffer.from(svg)).grayscale().jpeg({ quality: 70 }).toBuffer();
  const doc = new PDFDocument({ size: 'LETTER', margin: 0 });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  doc.image(image, 0, 0, { width: 612, height: 792 });
  if (options.text) doc.fontSize(12).text('Stamped: received 2025-03-04', 40, 40);
  doc.end();
  return new Uint8Array(await done);
}

async function fromScanImage(bytes: Uint8Array) {
  const pdf = await openPdf(bytes);
  try {
    return await scannedPageImage(pdf, 1, 300);
  } finally {
    await pdf.destroy();
  }
}

it.each([100, 150, 200, 300])('a %i-dpi scan gives OCR the pixels of the page rendered at 300 dpi', async (dpi) => {
  const bytes = await scan(dpi);
  const [rendered] = await renderPdfPages(bytes, [1], 300);
  const image = await fromScanImage(bytes);
  expect(image).not.toBeNull();
  const [fromRender, fromImage] = [await prepareImage(rendered), await prepareImage(image ?? rendered)];
  expect(fromImage.width).toBe(fromRender.width);
  expect(fromImage.height).toBe(fromRender.height);
  expect(Buffer.compare(fromImage.image, fromRender.image)).toBe(0);
});

it('renders a page whose image pdf.js would smooth (250 dpi) or that prints more than its image', async () => {
  expect(await fromScanImage(await scan(250))).toBeNull();
  expect(await fromScanImage(await scan(200, { text: true }))).toBeNull();
});
