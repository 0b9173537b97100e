import { currentRequestId, REQUEST_ID_HEADER } from '../../common/request-context';
import { signPartnerWebhook, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../partner-signature';

/** One partner webhook call: a path on labflow's API (`/v3/webhooks/courier/sandbox`) and its JSON body. */
export interface PartnerWebhookCall {
  path: string;
  body: unknown;
  /**
   * The report's id, sent as the body's `event_id` (signed with it): the same report resent (a
   * retried activity) carries the same id, and labflow applies it once.
   */
  eventId?: string;
}

/** How labflow answered: `accepted`/`ignored` (200), or `refused` (any other 4xx: the partner gives up). */
export type PartnerWebhookAnswer = 'accepted' | 'ignored' | 'refused';

/** A call worth retrying failed (network error, 5xx, 429): the caller's activity is retried. */
export class PartnerWebhookUnavailable extends Error {}

/**
 * What a partner does to report to labflow: a signed POST to labflow's public partner webhook
 * routes over HTTP (signed as partner-signature.ts verifies), as a real courier, lab or
 * appointment provider does. The sandbox partners of `POST /v3/order/{id}/test` use it from their
 * activities, so a sandbox order takes the production path from the HTTP request on. The call
 * carries the request id the activity runs under (the `/test` request's), so what it causes is
 * logged and delivered under that id, as when the partners were called in process.
 */
export class PartnerWebhookClient {
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly secret: string | null,
    private readonly timeoutMs = 15_000,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  async post(call: PartnerWebhookCall): Promise<PartnerWebhookAnswer> {
    if (!this.secret) throw new PartnerWebhookUnavailable('PARTNER_WEBHOOK_SECRET is not set: sandbox partners cannot sign their webhooks.');
    const timestamp = Math.floor(Date.now() / 1000);
    const body = call.eventId !== undefined ? { ...(call.body as Record<string, unknown>), event_id: call.eventId } : call.body;
    const requestId = currentRequestId();
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${call.path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(requestId !== undefined ? { [REQUEST_ID_HEADER]: requestId } : {}),
          [TIMESTAMP_HEADER]: String(timestamp),
          [SIGNATURE_HEADER]: signPartnerWebhook(this.secret, timestamp, body),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new PartnerWebhookUnavailable(`POST ${call.path} failed: ${String(error)}`);
    }
    const text = await response.text().catch(() => '');
    if (response.status >= 500 || response.status === 429) throw new PartnerWebhookUnavailable(`POST ${call.path}: ${response.status} ${text.slice(0, 200)}`);
    if (!response.ok) return 'refused';
    const status = (JSON.parse(text || '{}') as { status?: unknown }).status;
    return status === 'ignored' ? 'ignored' : 'accepted';
  }
}
