/**
 * pdf.js 5 (bundled by unpdf) decodes images with `ArrayBuffer.prototype.transferToFixedLength`,
 * which Node 20 lacks; without it embedded images (every scanned report) render blank. This adds
 * the copying equivalent where it is missing; Node 21+ keeps its own.
 */
interface TransferableBuffer {
  transferToFixedLength?: (length?: number) => ArrayBuffer;
}

const proto = ArrayBuffer.prototype as unknown as TransferableBuffer;
if (!proto.transferToFixedLength) {
  Object.defineProperty(ArrayBuffer.prototype, 'transferToFixedLength', {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length?: number): ArrayBuffer {
      const size = length ?? this.byteLength;
      const copy = new ArrayBuffer(size);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(size, this.byteLength)));
      return copy;
    },
  });
}
export {};
