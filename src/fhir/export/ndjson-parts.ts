/**
 * An export part's bytes as stored: NDJSON gzipped, then sealed (PhiCipher). Lines of one type
 * repeat most of their text, so gzip at its fastest level shrinks a part some 20 to 40 times for
 * about a microsecond a line, which costs less than writing (and WAL-logging) the plain bytes.
 * Compression runs on libuv's pool, beside the thread that builds the next lines. Parts written
 * before parts were compressed open as they are: NDJSON starts with `{`, gzip with 1f 8b.
 */
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { PhiCipher } from '../../common/crypto';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

export async function sealPart(cipher: PhiCipher, ndjson: string | Buffer): Promise<Buffer> {
  return cipher.encryptBytes(await gzipAsync(ndjson, { level: 1 }));
}

export async function openPart(cipher: PhiCipher, sealed: Uint8Array): Promise<Buffer> {
  const bytes = cipher.decryptBytes(sealed);
  return bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipAsync(bytes) : bytes;
}
