/**
 * Deterministic pseudo-randomness from strings: no Math.random, no Node built-ins, so the same
 * seed gives the same numbers in an activity, a workflow or a test.
 */

/** A 32-bit hash of the parts (FNV-1a over UTF-16 code units, then murmur3's finalizer). */
export function hash32(...parts: readonly (string | number)[]): number {
  let h = 0x811c9dc5;
  const text = parts.join('\u0000');
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A number in [0, 1) derived from the parts. */
export function unitInterval(...parts: readonly (string | number)[]): number {
  return hash32(...parts) / 0x1_0000_0000;
}
