import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Reads a PDF's text back with pdf-parse (pdf.js), in a plain Node child process (pdf.js loads
 * its worker with a dynamic import(), which Jest's module sandbox refuses).
 */
const READ_PDF = `
const { PDFParse } = require(${JSON.stringify(require.resolve('pdf-parse'))});
const data = require('node:fs').readFileSync(0);
(async () => {
  const parser = new PDFParse({ data: new Uint8Array(data) });
  try {
    const result = await parser.getText();
    process.stdout.write(JSON.stringify({ text: result.text, pages: result.total }));
  } finally {
    await parser.destroy();
  }
})().catch((error) => { console.error(error); process.exit(1); });
`;

/** A PDF's text as pdf.js extracts it (line breaks kept) and its number of pages. */
export function readPdf(pdf: Buffer): { text: string; pages: number } {
  const child = spawnSync(process.execPath, ['-e', READ_PDF], { input: pdf, cwd: join(__dirname, '../..'), encoding: 'utf8', timeout: 30_000 });
  if (child.status !== 0) throw new Error(`pdf-parse failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as { text: string; pages: number };
}

/** A PDF's text with whitespace runs folded, so wrapped text can be searched. */
export function pdfText(pdf: Buffer): string {
  return readPdf(pdf).text.replace(/\s+/g, ' ');
}

/** GETs a URL and returns status and body bytes (for PDFs). */
export async function fetchBytes(url: string, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string | null; body: Buffer }> {
  const response = await fetch(url, { headers });
  return { status: response.status, contentType: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
}
