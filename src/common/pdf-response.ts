import { StreamableFile } from '@nestjs/common';

/** A PDF a controller answers with, shown in the browser (`inline`) under `filename`. */
export function inlinePdf(pdf: Buffer, filename: string): StreamableFile {
  return new StreamableFile(pdf, { type: 'application/pdf', disposition: `inline; filename="${filename}"` });
}
