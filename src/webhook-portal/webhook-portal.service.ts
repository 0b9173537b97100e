import { Injectable } from '@nestjs/common';
import { notFound } from '../common/errors';
import type { WebhookEndpointEntity } from '../management/webhooks/webhook-endpoint.entity';
import { type AttemptView, type ListPage, type MessageView, WebhookMessagesService } from '../management/webhooks/webhook-messages.service';
import { WebhooksRepository } from '../management/webhooks/webhooks.repository';
import { decodeCursor } from '../common/keyset-cursor';
import type { PortalTeamSession } from './webhook-portal-access.service';

/** How many messages one page of an endpoint shows, and attempts one message shows. */
export const MESSAGES_PER_PAGE = 25;
const ATTEMPTS_SHOWN = 50;

/**
 * What the webhook portal shows and does, for the session's team and environment only: the
 * management API's webhook services (src/management/webhooks), never SQL of its own. Every
 * endpoint is looked up in the session's scope first, so another team's endpoint is a 404.
 */
@Injectable()
export class WebhookPortalService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly messages: WebhookMessagesService,
  ) {}

  async endpoints(session: PortalTeamSession): Promise<WebhookEndpointEntity[]> {
    return (await this.webhooks.listPage(scopeOf(session), undefined, 100)).items;
  }

  async endpoint(session: PortalTeamSession, endpointId: string): Promise<WebhookEndpointEntity> {
    const endpoint = await this.webhooks.find(scopeOf(session), endpointId);
    if (!endpoint) throw notFound('Webhook');
    return endpoint;
  }

  /** A page of the endpoint's messages, newest first; `cursor` is the previous page's next_cursor (a bad one reads as the first page). */
  async messagePage(session: PortalTeamSession, endpointId: string, cursor: string | undefined): Promise<ListPage<MessageView>> {
    await this.endpoint(session, endpointId);
    const after = (cursor && decodeCursor(cursor)) || undefined;
    return this.messages.listMessages(endpointId, { limit: MESSAGES_PER_PAGE, after });
  }

  async message(
    session: PortalTeamSession,
    endpointId: string,
    messageId: string,
  ): Promise<{ message: MessageView & { payload: unknown }; attempts: AttemptView[] }> {
    await this.endpoint(session, endpointId);
    const message = await this.messages.getMessage(endpointId, messageId);
    const attempts = await this.messages.listAttempts(endpointId, { limit: ATTEMPTS_SHOWN, eventId: messageId });
    return { message, attempts: attempts.data };
  }

  async resend(session: PortalTeamSession, endpointId: string, messageId: string): Promise<void> {
    const endpoint = await this.endpoint(session, endpointId);
    await this.messages.retry(endpointId, messageId, endpoint.disabled);
  }

  async recover(session: PortalTeamSession, endpointId: string, since: Date): Promise<number> {
    const endpoint = await this.endpoint(session, endpointId);
    return (await this.messages.recover(endpointId, since, endpoint.disabled)).recovered;
  }

  /** Disables or re-enables the endpoint (as the management API's PATCH {disabled}). */
  async setDisabled(session: PortalTeamSession, endpointId: string, disabled: boolean): Promise<void> {
    const endpoint = await this.endpoint(session, endpointId);
    endpoint.disabled = disabled;
    await this.webhooks.save(endpoint);
  }
}

function scopeOf(session: PortalTeamSession) {
  return { teamId: session.teamId, environment: session.environment };
}
