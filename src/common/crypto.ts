import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hash, hkdfSync, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** First byte of encryptBytes output. */
const BYTES_VERSION = 1;

/**
 * An AES-256 key and the earlier keys a rotation left: only the current key seals; a value opens
 * with the current key, else with an earlier one (GCM's tag tells a wrong key). PhiCipher and the
 * Temporal payload codec (src/temporal/payload-codec.ts) each keep one.
 */
export class Keyring {
  readonly current: KeyObject;
  private readonly earlier: KeyObject[];

  /** `name` says whose keys these are in the error a wrong-sized key gets. */
  constructor(current: Buffer, earlier: readonly Buffer[] = [], name = 'encryption key') {
    if (current.length !== 32 || earlier.some((key) => key.length !== 32)) throw new Error(`${name} must be 32 bytes`);
    this.current = createSecretKey(current);
    const distinct = earlier.filter((key, index) => !key.equals(current) && earlier.findIndex((other) => other.equals(key)) === index);
    this.earlier = distinct.map((key) => createSecretKey(key));
  }

  /** `open` with the current key, else each earlier one in turn; the current key's error when none opens. */
  open<T>(open: (key: KeyObject) => T): T {
    try {
      return open(this.current);
    } catch (error) {
      for (const key of this.earlier) {
        try {
          return open(key);
        } catch {
          // Not this one either.
        }
      }
      throw error;
    }
  }
}

/**
 * AES-256-GCM for PHI at rest. Output is `v1.<base64(iv | tag | ciphertext)>`, or for binary PHI
 * `0x01 | iv | tag | ciphertext`.
 *
 * Sealing uses PHI_ENCRYPTION_KEY; opening tries it first, then the earlier keys of
 * PHI_ENCRYPTION_PREVIOUS_KEYS, so after a rotation what the old key sealed stays readable until
 * `labflow phi rekey` has sealed it again (GCM's tag tells a wrong key: a value opens with the key
 * that sealed it and no other). The format carries no key id on purpose: processes of an older
 * version read every value a newer one writes, so a rolling upgrade never meets an unknown
 * format. Earlier keys only open; nothing is sealed or signed with them.
 */
export class PhiCipher {
  /**
   * The keys as KeyObjects, made once: given a Buffer, every createCipheriv/createDecipheriv
   * would prepare a key from it again (decryptJson of a patient's details: ~4.7 µs this way, ~5.1 µs
   * with the Buffer; an order's view opens three PHI columns, a webhook delivery two).
   */
  private readonly keys: Keyring;

  constructor(key: Buffer, previousKeys: readonly Buffer[] = []) {
    this.keys = new Keyring(key, previousKeys, 'PHI encryption key');
  }

  encrypt(plaintext: string): string {
    const { iv, tag, body } = this.seal(Buffer.from(plaintext, 'utf8'));
    return `${VERSION}.${Buffer.concat([iv, tag, body]).toString('base64')}`;
  }

  decrypt(sealed: string): string {
    return this.open(textParts(sealed)).toString('utf8');
  }

  /**
   * Binary PHI (uploaded files) without base64's third more: `0x01 | iv | tag | ciphertext`,
   * the leading byte being the format version.
   */
  encryptBytes(plaintext: Uint8Array): Buffer {
    const { iv, tag, body } = this.seal(plaintext);
    return Buffer.concat([Buffer.from([BYTES_VERSION]), iv, tag, body]);
  }

  decryptBytes(sealed: Uint8Array): Buffer {
    return this.open(bytesParts(sealed));
  }

  /** Whether PHI_ENCRYPTION_KEY itself sealed this value (text or binary): what a rekey leaves as it is. */
  sealedWithCurrentKey(sealed: string | Uint8Array): boolean {
    try {
      this.openWith(this.keys.current, typeof sealed === 'string' ? textParts(sealed) : bytesParts(sealed));
      return true;
    } catch {
      return false;
    }
  }

  /** The value sealed again with PHI_ENCRYPTION_KEY (it must open with one of the keys). */
  reseal(sealed: string): string {
    return this.encrypt(this.decrypt(sealed));
  }

  resealBytes(sealed: Uint8Array): Buffer {
    return this.encryptBytes(this.decryptBytes(sealed));
  }

  // GCM is a stream mode: update() gives every byte and final() only computes (or checks) the tag,
  // returning nothing, so its output is not concatenated (that would copy a whole file).

  private seal(plaintext: Uint8Array): { iv: Buffer; tag: Buffer; body: Buffer } {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.current, iv);
    const body = cipher.update(plaintext);
    cipher.final();
    return { iv, tag: cipher.getAuthTag(), body };
  }

  /** With the current key, else the earlier ones; throws when none matches (tampered, or a key not configured). */
  private open(parts: SealedParts): Buffer {
    return this.keys.open((key) => this.openWith(key, parts));
  }

  /** Throws when the tag does not match (tampered ciphertext, another key). */
  private openWith(key: KeyObject, { iv, tag, body }: SealedParts): Buffer {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    const plaintext = decipher.update(body);
    decipher.final();
    return plaintext;
  }

  encryptJson(value: unknown): string {
    return this.encrypt(JSON.stringify(value));
  }

  decryptJson<T>(sealed: string): T {
    return JSON.parse(this.decrypt(sealed)) as T;
  }
}

interface SealedParts {
  iv: Buffer;
  tag: Buffer;
  body: Buffer;
}

function textParts(sealed: string): SealedParts {
  const [version, payload] = sealed.split('.', 2);
  if (version !== VERSION || !payload) throw new Error('Unknown PHI ciphertext format');
  const raw = Buffer.from(payload, 'base64');
  return { iv: raw.subarray(0, IV_BYTES), tag: raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES), body: raw.subarray(IV_BYTES + TAG_BYTES) };
}

function bytesParts(sealed: Uint8Array): SealedParts {
  const raw = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (raw[0] !== BYTES_VERSION || raw.length < 1 + IV_BYTES + TAG_BYTES) throw new Error('Unknown PHI ciphertext format');
  return { iv: raw.subarray(1, 1 + IV_BYTES), tag: raw.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES), body: raw.subarray(1 + IV_BYTES + TAG_BYTES) };
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A secret with a readable prefix and 256 bits of randomness, e.g. `sk_us_…` or `mg_…`. */
export function generateSecret(prefix: string, bytes = 32): string {
  const random = randomBytes(bytes);
  let out = '';
  for (const byte of random) out += BASE62[byte % 62];
  // 32 bytes mod 62 is slightly biased; 32 more characters keep well over 180 bits of entropy.
  for (const byte of randomBytes(bytes)) out += BASE62[byte % 62];
  return `${prefix}${out}`;
}

/**
 * The key of portalCodeDigest, derived from a PHI key by HKDF under a label of its own (never
 * shared with another use).
 */
export function portalCodeKey(phiKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', phiKey, Buffer.alloc(0), 'labflow portal short link code', 32));
}

/**
 * The stored form of a portal link's short code (8 base62 characters, ~47 bits): HMAC-SHA256 under
 * portalCodeKey. A plain SHA-256 would let a copy of the database try every possible code offline
 * (2^47 hashes, hours on one GPU, for all stored codes at once); the keyed one needs the PHI key.
 */
export function portalCodeDigest(codeKey: Buffer, code: string): Buffer {
  return createHmac('sha256', codeKey).update(code, 'utf8').digest();
}

/** Keys are high-entropy, so a plain SHA-256 is the right hash (no password stretching needed). */
export function hashSecret(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

/** hashSecret in hex, in one call (the team key cache's key on every request; ~0.6 µs against ~3.5 µs through a Hash object). */
export function hashSecretHex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Constant-time comparison of a presented secret against a stored hash. */
export function secretMatches(value: string, storedHash: Buffer): boolean {
  const presented = hashSecret(value);
  return presented.length === storedHash.length && timingSafeEqual(presented, storedHash);
}
