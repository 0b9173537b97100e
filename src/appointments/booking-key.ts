import { createHash, createHmac, hash, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { AppointmentKind } from './providers/appointment-provider';

/** How long a booking key stays bookable after it was issued. */
export const BOOKING_KEY_LIFETIME_MS = 10 * 60_000;

/** What a booking key vouches for; booking verifies it without any storage. */
export interface BookingSlot {
  kind: AppointmentKind;
  provider: string;
  team_id: string;
  /** PSC site code, or the covered zip code for at-home phlebotomy. */
  site: string;
  start: string;
  end: string;
  expires_at: string;
}

export type BookingKeyCheck = BookingSlot | 'expired' | 'invalid';

const VERSION = 'bk1';

/** The HMAC key: derived from PHI_ENCRYPTION_KEY with HKDF (own label, so never reused). */
export function bookingKeySecret(phiKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', phiKey, Buffer.alloc(0), 'labflow appointment booking keys', 32));
}

function mac(secret: Buffer, body: string): Buffer {
  return createHmac('sha256', secret).update(`${VERSION}.${body}`).digest();
}

/** `bk1.<base64url JSON>.<base64url HMAC-SHA256>`: opaque to clients, tamper-evident. */
export function signBookingKey(secret: Buffer, slot: BookingSlot): string {
  const body = Buffer.from(JSON.stringify(slot)).toString('base64url');
  return `${VERSION}.${body}.${mac(secret, body).toString('base64url')}`;
}

/** 'invalid' for anything not signed by us (or malformed); 'expired' once past expires_at. */
export function verifyBookingKey(key: string, secret: Buffer, nowMs: number = Date.now()): BookingKeyCheck {
  if (typeof key !== 'string' || key.length > 4096) return 'invalid';
  const parts = key.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) return 'invalid';
  const [, body, signature] = parts;
  const expected = mac(secret, body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  let slot: BookingSlot;
  try {
    slot = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as BookingSlot;
  } catch {
    return 'invalid';
  }
  const expires = Date.parse(slot?.expires_at);
  if (!Number.isFinite(expires)) return 'invalid';
  return nowMs >= expires ? 'expired' : slot;
}

/** One-shot hashing (Node ≥ 20.12): no Hash object per call. */
const oneShotHash: typeof hash | undefined = typeof hash === 'function' ? hash : undefined;
const SHA256_BLOCK = 64;
const SIGNED_PREFIX = `${VERSION}.`;

/**
 * Signs booking keys the way signBookingKey does (same bytes, same HMAC-SHA256), at a fraction of
 * its cost per key: availability signs one key per slot, hundreds per answer. The HMAC's padded
 * key blocks are computed once and each MAC is two one-shot SHA-256 calls (RFC 2104) over reused
 * buffers; the slot's JSON is encoded through a reused buffer too. Synchronous, so the buffers
 * are never shared between two calls.
 */
class BookingKeySigner {
  /** The slot's JSON, UTF-8. */
  private json = Buffer.alloc(1024);
  /** The inner padded key block, then the signed text (`bk1.<body>`). */
  private inner: Buffer;
  /** The outer padded key block, then the inner hash. */
  private readonly outer: Buffer;

  constructor(private readonly secret: Buffer) {
    const key = secret.length > SHA256_BLOCK ? createHash('sha256').update(secret).digest() : secret;
    this.inner = Buffer.alloc(SHA256_BLOCK + 1024, 0x36);
    this.outer = Buffer.alloc(SHA256_BLOCK + 32, 0x5c);
    for (let i = 0; i < key.length; i += 1) {
      this.inner[i] ^= key[i];
      this.outer[i] ^= key[i];
    }
    this.inner.write(SIGNED_PREFIX, SHA256_BLOCK, 'latin1');
  }

  /** `bk1.<base64url JSON>.<base64url HMAC-SHA256>` of a slot's JSON. */
  sign(json: string): string {
    if (!oneShotHash) {
      const body = Buffer.from(json).toString('base64url');
      return `${SIGNED_PREFIX}${body}.${createHmac('sha256', this.secret).update(`${SIGNED_PREFIX}${body}`).digest('base64url')}`;
    }
    // write() silently cuts what does not fit: UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (3 * json.length > this.json.length) this.json = Buffer.alloc(3 * json.length);
    const body = this.json.toString('base64url', 0, this.json.write(json, 0, 'utf8'));
    const signedAt = SHA256_BLOCK + SIGNED_PREFIX.length;
    if (signedAt + body.length > this.inner.length) {
      const grown = Buffer.alloc(signedAt + 2 * body.length);
      this.inner.copy(grown, 0, 0, signedAt);
      this.inner = grown;
    }
    const length = this.inner.write(body, signedAt, 'latin1');
    // The inner hash as a 'binary' (latin1) string, one char per byte: cheaper than a new Buffer.
    this.outer.write(oneShotHash('sha256', this.inner.subarray(0, signedAt + length), 'binary'), SHA256_BLOCK, 'binary');
    return `${SIGNED_PREFIX}${body}.${oneShotHash('sha256', this.outer, 'base64url')}`;
  }
}

/** The fields every slot of one availability answer shares. */
export type BookingKeyCommon = Pick<BookingSlot, 'kind' | 'provider' | 'team_id'>;

/** Issues and checks booking keys with the service's secret and an injectable clock. */
export class BookingKeys {
  private readonly secret: Buffer;
  private readonly signer: BookingKeySigner;

  constructor(
    phiKey: Buffer,
    private readonly now: () => number = Date.now,
    private readonly lifetimeMs = BOOKING_KEY_LIFETIME_MS,
  ) {
    this.secret = bookingKeySecret(phiKey);
    this.signer = new BookingKeySigner(this.secret);
  }

  issue(slot: Omit<BookingSlot, 'expires_at'>): { booking_key: string; expires_at: string } {
    const expires_at = new Date(this.now() + this.lifetimeMs).toISOString();
    return { booking_key: this.signer.sign(JSON.stringify({ ...slot, expires_at })), expires_at };
  }

  /**
   * Keys for the slots of one answer, all expiring together (lifetime from now). The same keys as
   * `issue` gives slot by slot (same bytes, same MAC), without re-encoding the shared fields.
   */
  issuer(common: BookingKeyCommon): { expires_at: string; issue(site: string, start: string, end: string): string } {
    const expires_at = new Date(this.now() + this.lifetimeMs).toISOString();
    const head = `{"kind":${JSON.stringify(common.kind)},"provider":${JSON.stringify(common.provider)},"team_id":${JSON.stringify(common.team_id)},"site":`;
    const tail = `,"expires_at":${JSON.stringify(expires_at)}}`;
    const sites = new Map<string, string>();
    return {
      expires_at,
      issue: (site, start, end) => {
        let prefix = sites.get(site);
        if (prefix === undefined) {
          prefix = `${head}${JSON.stringify(site)},"start":`;
          sites.set(site, prefix);
        }
        return this.signer.sign(`${prefix}${JSON.stringify(start)},"end":${JSON.stringify(end)}${tail}`);
      },
    };
  }

  verifyBookingKey(key: string): BookingKeyCheck {
    return verifyBookingKey(key, this.secret, this.now());
  }
}
