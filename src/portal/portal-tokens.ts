import { createHmac, hkdfSync, randomInt, timingSafeEqual } from 'node:crypto';
import { portalCodeDigest, portalCodeKey } from '../common/crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** What a signed portal value stands for; part of what is signed, so one kind never passes for another. */
export type PortalTokenKind = 'launch' | 'session' | 'device' | 'csrf';

/**
 * Signatures of the portal's URLs and cookies: HMAC-SHA256 with a key derived from
 * PHI_ENCRYPTION_KEY by HKDF under its own label (never shared with another use), and the
 * one-time codes' hashes. A token is `<part>.<part>….<signature>`.
 */
export class PortalTokens {
  private readonly secret: Buffer;
  /** portalCodeKey of PHI_ENCRYPTION_KEY, then of each earlier key (a code stored before a rotation still opens). */
  private readonly codeKeys: Buffer[];

  /** `label`: the HKDF label of the signing key; another hosted page (the webhook portal) passes its own, so no token of one opens the other. */
  constructor(phiKey: Buffer, previousKeys: readonly Buffer[] = [], label = 'labflow patient portal') {
    this.secret = Buffer.from(hkdfSync('sha256', phiKey, Buffer.alloc(0), label, 32));
    this.codeKeys = [phiKey, ...previousKeys].map(portalCodeKey);
  }

  /** A short link code as it is stored (portal_links.code_hash): never the code itself. */
  codeDigest(code: string): Buffer {
    return portalCodeDigest(this.codeKeys[0], code);
  }

  /** The stored forms a code may have: under the current PHI key, and under each earlier one. */
  codeDigests(code: string): Buffer[] {
    return this.codeKeys.map((key) => portalCodeDigest(key, code));
  }

  sign(kind: PortalTokenKind, parts: Array<string | number>): string {
    return `${parts.join('.')}.${this.mac(kind, parts.join('.'))}`;
  }

  /** The signed parts, or null for anything not signed by us for this kind and part count. */
  verify(kind: PortalTokenKind, token: unknown, partCount: number): string[] | null {
    if (typeof token !== 'string' || token.length > 400) return null;
    const parts = token.split('.');
    if (parts.length !== partCount + 1) return null;
    const given = Buffer.from(parts.pop() as string);
    const expected = Buffer.from(this.mac(kind, parts.join('.')));
    return given.length === expected.length && timingSafeEqual(given, expected) ? parts : null;
  }

  /** The stored form of a one-time code: bound to its link, so a code never opens another link. */
  hashCode(linkId: string, code: string): Buffer {
    return createHmac('sha256', this.secret).update(`otp.${linkId}.${code}`).digest();
  }

  codeMatches(linkId: string, code: string, stored: Buffer): boolean {
    const given = this.hashCode(linkId, code);
    return given.length === stored.length && timingSafeEqual(given, stored);
  }

  private mac(kind: PortalTokenKind, payload: string): string {
    return createHmac('sha256', this.secret).update(`${kind}.${payload}`).digest('base64url');
  }
}

/** A short link's code: 8 base62 characters (~47 bits), uniform (randomInt rejects the biased tail). */
export function newShortCode(length = 8): string {
  let code = '';
  for (let i = 0; i < length; i += 1) code += BASE62[randomInt(62)];
  return code;
}

/** A six-digit one-time code. */
export function newOneTimeCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

export const SHORT_CODE_PATTERN = /^[0-9A-Za-z]{8}$/;

/** DI token of the process's PortalTokens. */
export const PORTAL_TOKENS = Symbol('PORTAL_TOKENS');
