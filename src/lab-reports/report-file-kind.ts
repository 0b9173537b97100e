import type { ReportFileKind } from './lab-report.entities';

/** A report's type by its first bytes (never by its name or declared type). */
export function detectReportFileKind(bytes: Uint8Array): ReportFileKind | null {
  const starts = (...signature: number[]) => bytes.length >= signature.length && signature.every((byte, i) => bytes[i] === byte);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return 'pdf'; // %PDF-
  if (starts(0xff, 0xd8, 0xff)) return 'jpeg';
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  return null;
}
