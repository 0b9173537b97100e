import { code128BWidths, CODE128_QUIET_ZONE } from './code128';

export interface BarcodeBox {
  x: number;
  y: number;
  /** Width available, quiet zones included. */
  maxWidth: number;
  height: number;
  /** The widest a module (the narrowest bar) may be, in points. */
  maxModule: number;
  /** Size of the human-readable text under the bars. */
  fontSize: number;
}

/**
 * Draws a Code 128 symbol of `text` with the human-readable text centred under it; modules are
 * as wide as the box allows, up to `maxModule`. Returns the y under the text.
 */
export function drawCode128(doc: PDFKit.PDFDocument, text: string, box: BarcodeBox): number {
  const widths = code128BWidths(text);
  const modules = widths.reduce((sum, w) => sum + w, 0) + 2 * CODE128_QUIET_ZONE;
  const module = Math.min(box.maxModule, box.maxWidth / modules);
  let x = box.x + CODE128_QUIET_ZONE * module;
  widths.forEach((w, index) => {
    if (index % 2 === 0) doc.rect(x, box.y, w * module, box.height).fill('black');
    x += w * module;
  });
  doc.font('Courier').fontSize(box.fontSize).fillColor('black');
  doc.text(text, box.x, box.y + box.height + 2, { width: modules * module, align: 'center', lineBreak: false });
  return box.y + box.height + 2 + doc.currentLineHeight();
}
