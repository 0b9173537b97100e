import { Inject, Injectable } from '@nestjs/common';
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';

const VERSION = 'rq1';

/** The HMAC key of requisition links: derived from PHI_ENCRYPTION_KEY with HKDF (own label, never reused). */
export function requisitionLinkSecret(phiKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', phiKey, Buffer.alloc(0), 'labflow requisition form links', 32));
}

/** base64url HMAC-SHA256 of `rq1.<order id>.<expires (unix seconds)>`. */
export function signRequisitionLink(secret: Buffer, orderId: string, expires: number): string {
  return `${VERSION}.${createHmac('sha256', secret).update(`${VERSION}.${orderId}.${expires}`).digest('base64url')}`;
}

export type RequisitionLinkCheck = 'valid' | 'expired' | 'invalid';

/** 'invalid' for anything we did not sign for this order and expiry; 'expired' once past `expires`. */
export function verifyRequisitionLink(secret: Buffer, orderId: string, expires: unknown, signature: unknown, nowMs: number = Date.now()): RequisitionLinkCheck {
  if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string' || signature.length > 200) return 'invalid';
  const expected = Buffer.from(signRequisitionLink(secret, orderId, Number(expires)));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return nowMs >= Number(expires) * 1000 ? 'expired' : 'valid';
}

/** Where an order's requisition form is served without an API key (the signed link's path). */
export const requisitionLinkPath = (orderId: string) => `/v3/order/${orderId}/requisition/pdf/signed`;

/**
 * `requisition_form_url`: a link to the order's requisition PDF that works without the team's API
 * key, signed (HMAC, key derived from PHI_ENCRYPTION_KEY) and expiring REQUISITION_LINK_TTL after
 * the order was read. Each read of the order issues a fresh link.
 */
@Injectable()
export class RequisitionLinks {
  private readonly secret: Buffer;

  constructor(@Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig) {
    this.secret = requisitionLinkSecret(config.phiEncryptionKey);
  }

  url(orderId: string, nowMs: number = Date.now()): string {
    const expires = Math.floor((nowMs + this.config.orders.requisitionLinkTtlMs) / 1000);
    const query = new URLSearchParams({ expires: String(expires), signature: signRequisitionLink(this.secret, orderId, expires) });
    return `${this.config.api.publicUrl}${requisitionLinkPath(orderId)}?${query.toString()}`;
  }

  verify(orderId: string, expires: unknown, signature: unknown, nowMs?: number): RequisitionLinkCheck {
    return verifyRequisitionLink(this.secret, orderId, expires, signature, nowMs);
  }
}
