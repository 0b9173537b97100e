import { applyDecorators, type CanActivate, type ExecutionContext, Inject, Injectable, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { headerOf, KeepsRawBody, signedBodyOf } from '../../common/body-parsers';
import { ApiError, unauthorized } from '../../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../../config/config';

/**
 * WHOOP's webhooks (developer.whoop.com, "Webhooks"): WHOOP POSTs `{user_id, id, type, trace_id}`
 * when a member's sleep, recovery or workout was updated or deleted, to the one URL set on
 * labflow's app in WHOOP's developer dashboard, signed with the app's client secret.
 */
export const WHOOP_SIGNATURE_HEADER = 'x-whoop-signature';
export const WHOOP_TIMESTAMP_HEADER = 'x-whoop-signature-timestamp';
/**
 * A webhook signed longer ago (or further ahead) than this is refused: a captured request cannot be
 * replayed later. WHOOP signs each delivery, retries included, when it sends it.
 */
const TOLERANCE_MS = 5 * 60_000;

/** `base64(HMAC-SHA256(client secret, <timestamp header> + <body bytes>))`, as WHOOP signs. */
export function signWhoopWebhook(clientSecret: string, timestamp: string, body: Buffer | string): string {
  return createHmac('sha256', clientSecret).update(timestamp).update(body).digest('base64');
}

/** Checks a WHOOP webhook's signature over the exact bytes received, before anything else runs. */
@Injectable()
export class WhoopSignatureGuard implements CanActivate {
  constructor(@Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const whoop = this.config.providers.whoop;
    if (!whoop) throw new ApiError(503, 'WHOOP is not configured (WHOOP_CLIENT_ID, WHOOP_CLIENT_SECRET).');
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const timestamp = headerOf(request, WHOOP_TIMESTAMP_HEADER) ?? '';
    if (!/^\d{1,15}$/.test(timestamp) || Math.abs(Date.now() - Number(timestamp)) > TOLERANCE_MS) {
      throw unauthorized(`Missing or stale ${WHOOP_TIMESTAMP_HEADER}.`);
    }
    const expected = Buffer.from(signWhoopWebhook(whoop.clientSecret, timestamp, signedBodyOf(request, '@WhoopSigned()')));
    const presented = Buffer.from(headerOf(request, WHOOP_SIGNATURE_HEADER) ?? '');
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw unauthorized('Invalid WHOOP webhook signature.');
    return true;
  }
}

/** WHOOP's webhook route: its raw body is kept and its signature checked over those bytes. */
export const WhoopSigned = () => applyDecorators(KeepsRawBody(), UseGuards(WhoopSignatureGuard));
