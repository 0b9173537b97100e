import type { ReportFileKind } from './types';

/** The file's kind from its magic bytes alone (never its name or declared type). */
export function detectReportFileKind(bytes: Uint8Array): ReportFileKind | null {
  const starts = (...sig: number[]) => bytes.length >= sig.length && sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (starts(0xff, 0xd8, 0xff)) return 'jpeg';
  // `%PDF-`, which the PDF spec allows within the first 1024 bytes.
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  if (head.includes('%PDF-')) return 'pdf';
  return null;
}
