import { applyDecorators, type CanActivate, type ExecutionContext, Inject, Injectable, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { headerOf, KeepsRawBody, signedBodyOf } from '../common/body-parsers';
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
 * `v1=<hex HMAC-SHA256(secret, "<timestamp>.<body bytes>")>`: the signature covers the body
 * exactly as sent (key order, whitespace), so a partner signs the bytes it puts on the wire.
 */
export function signPartnerPayload(secret: string, timestamp: number, body: Buffer | string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/** The signature of a body sent as `JSON.stringify(body)` (the sandbox partners and tests send that). */
export function signPartnerWebhook(secret: string, timestamp: number, body: unknown): string {
  return signPartnerPayload(secret, timestamp, JSON.stringify(body));
}

/** Verifies the HMAC signature of courier, lab and appointment-provider webhooks before anything else runs. */
@Injectable()
export class PartnerSignatureGuard implements CanActivate {
  constructor(@Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const secret = this.config.orders.partnerWebhookSecret;
    if (!secret) throw new ApiError(503, 'Partner webhooks are not configured (PARTNER_WEBHOOK_SECRET).');
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const timestamp = Number(headerOf(request, TIMESTAMP_HEADER));
    const signature = headerOf(request, SIGNATURE_HEADER) ?? '';
    if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > TOLERANCE_SECONDS) {
      throw unauthorized(`Missing or stale ${TIMESTAMP_HEADER}.`);
    }
    // No body (or a non-JSON one, which the parser never saw) is verified as empty bytes.
    const expected = Buffer.from(signPartnerPayload(secret, timestamp, signedBodyOf(request, '@PartnerSigned()')));
    const presented = Buffer.from(signature);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw unauthorized('Invalid webhook signature.');
    return true;
  }
}

/** A partner webhook route: its raw body is kept and its signature checked over those bytes. */
export const PartnerSigned = () => applyDecorators(KeepsRawBody(), UseGuards(PartnerSignatureGuard));
