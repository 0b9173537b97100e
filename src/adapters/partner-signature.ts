import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, unauthorized } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';

/**
 * How partners (couriers, labs, appointment providers) sign the webhooks they send labflow, and
 * the guard that checks it. It lives with the adapters: the sandbox partners sign their callbacks
 * with it, and the routes that receive partner webhooks (orders, appointments) verify with it.
 */
export const SIGNATURE_HEADER = 'x-labflow-signature';
export const TIMESTAMP_HEADER = 'x-labflow-timestamp';
/** A signed request older or newer than this is refused (replay protection). */
const TOLERANCE_SECONDS = 300;

/**
 * `v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`, where body is the compact JSON of the
 * request (JSON.stringify of what was sent). Partners and tests sign with this.
 */
export function signPartnerWebhook(secret: string, timestamp: number, body: unknown): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${JSON.stringify(body)}`).digest('hex')}`;
}

/** Verifies the HMAC signature of courier and lab webhooks before anything else runs. */
@Injectable()
export class PartnerSignatureGuard implements CanActivate {
  constructor(@Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const secret = this.config.orders.partnerWebhookSecret;
    if (!secret) throw new ApiError(503, 'Partner webhooks are not configured (PARTNER_WEBHOOK_SECRET).');
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined>; body: unknown }>();
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const timestamp = Number(header(TIMESTAMP_HEADER));
    const signature = header(SIGNATURE_HEADER) ?? '';
    if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > TOLERANCE_SECONDS) {
      throw unauthorized(`Missing or stale ${TIMESTAMP_HEADER}.`);
    }
    const expected = Buffer.from(signPartnerWebhook(secret, timestamp, request.body ?? null));
    const presented = Buffer.from(signature);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw unauthorized('Invalid webhook signature.');
    return true;
  }
}
