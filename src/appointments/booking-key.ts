import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
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

/** Issues and checks booking keys with the service's secret and an injectable clock. */
export class BookingKeys {
  private readonly secret: Buffer;

  constructor(
    phiKey: Buffer,
    private readonly now: () => number = Date.now,
    private readonly lifetimeMs = BOOKING_KEY_LIFETIME_MS,
  ) {
    this.secret = bookingKeySecret(phiKey);
  }

  issue(slot: Omit<BookingSlot, 'expires_at'>): { booking_key: string; expires_at: string } {
    const expires_at = new Date(this.now() + this.lifetimeMs).toISOString();
    return { booking_key: signBookingKey(this.secret, { ...slot, expires_at }), expires_at };
  }

  verifyBookingKey(key: string): BookingKeyCheck {
    return verifyBookingKey(key, this.secret, this.now());
  }
}
