import { Eta } from 'eta';
import type { WebhookEndpointEntity } from '../management/webhooks/webhook-endpoint.entity';
import type { AttemptView, MessageView } from '../management/webhooks/webhook-messages.service';
import type { PortalBrand } from '../portal/portal-brand';
import { CSS, LAYOUT } from '../portal/views/layout';
import { WEBHOOK_PORTAL_PREFIX } from './webhook-portal-access.service';
import { ENDPOINT_PAGE, ENDPOINTS_PAGE, EXTRA_CSS, MESSAGE_PAGE } from './views/pages';

/** What every page gets: the team's brand, the session's environment and CSRF token, and notes. */
export interface WebhookPageFrame {
  brand: PortalBrand;
  environment: string;
  csrf: string;
  flash?: string | null;
  error?: string | null;
}

const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true });
for (const [name, template] of Object.entries({ layout: LAYOUT, endpoints: ENDPOINTS_PAGE, endpoint: ENDPOINT_PAGE, message: MESSAGE_PAGE })) {
  eta.loadTemplate(`@${name}`, template);
}

function page(name: string, title: string, frame: WebhookPageFrame, data: object): string {
  return eta.render(`@${name}`, {
    ...data,
    title,
    brand: frame.brand,
    environment: frame.environment,
    // The layout's `csrf` shows the patient portal's sign-out form: not here; the forms here take `formCsrf`.
    csrf: null,
    formCsrf: frame.csrf,
    flash: frame.flash ?? null,
    error: frame.error ?? null,
    css: `${CSS}\n${EXTRA_CSS}`,
    fallbackHelp: 'This page shows your webhook endpoints and what was sent to them.',
  });
}

export const endpointHref = (id: string) => `${WEBHOOK_PORTAL_PREFIX}/endpoints/${id}`;
export const messageHref = (endpointId: string, messageId: string) => `${endpointHref(endpointId)}/messages/${messageId}`;

export function endpointsPage(frame: WebhookPageFrame, endpoints: WebhookEndpointEntity[]): string {
  return page('endpoints', 'Webhook endpoints', frame, { endpoints: endpoints.map(endpointModel) });
}

export function endpointPage(frame: WebhookPageFrame, endpoint: WebhookEndpointEntity, messages: MessageView[], nextCursor: string | null): string {
  const dayAgo = new Date(Date.now() - 24 * 3600_000).toISOString().slice(0, 16);
  return page('endpoint', `Endpoint ${endpoint.url}`, frame, {
    home: WEBHOOK_PORTAL_PREFIX,
    e: endpointModel(endpoint),
    sinceDefault: dayAgo,
    messages: messages.map((message) => ({
      id: message.id,
      href: messageHref(endpoint.id, message.id),
      eventType: message.event_type,
      status: message.status,
      attempts: message.attempt_count,
      createdAt: message.created_at,
      created: utc(message.created_at),
    })),
    nextHref: nextCursor ? `${endpointHref(endpoint.id)}?after=${encodeURIComponent(nextCursor)}` : null,
  });
}

export function messagePage(
  frame: WebhookPageFrame,
  endpoint: WebhookEndpointEntity,
  message: MessageView & { payload: unknown },
  attempts: AttemptView[],
): string {
  return page('message', message.event_type, frame, {
    endpointHref: endpointHref(endpoint.id),
    endpointUrl: endpoint.url,
    m: {
      id: message.id,
      href: messageHref(endpoint.id, message.id),
      eventType: message.event_type,
      status: message.status,
      reason: message.status_reason,
      next: message.next_attempt_at ? utc(message.next_attempt_at) : null,
      createdAt: message.created_at,
      created: utc(message.created_at),
      payload: JSON.stringify(message.payload, null, 2),
    },
    attempts: attempts.map((attempt) => ({
      number: attempt.attempt_number,
      manual: attempt.trigger === 'manual',
      status: attempt.status,
      code: attempt.response_status_code,
      // The error of a refused attempt is its status line, already shown beside the code.
      error: attempt.error === `HTTP ${attempt.response_status_code}` ? null : attempt.error,
      duration: attempt.latency_ms === null ? '—' : `${attempt.latency_ms} ms`,
      response: attempt.response,
      createdAt: attempt.created_at,
      created: utc(attempt.created_at),
    })),
  });
}

function endpointModel(endpoint: WebhookEndpointEntity) {
  return {
    id: endpoint.id,
    href: endpointHref(endpoint.id),
    url: endpoint.url,
    description: endpoint.description || null,
    disabled: endpoint.disabled,
    state: endpoint.disabled ? 'Disabled' : 'Enabled',
    filter: endpoint.filterTypes?.length ? endpoint.filterTypes.join(', ') : 'All event types',
  };
}

/** `2026-11-29 04:05:06`: the portal is for developers; times are UTC and say so in the column heading. */
function utc(iso: string): string {
  return iso.slice(0, 19).replace('T', ' ');
}
