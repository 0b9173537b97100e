import { Controller, Get, HttpException, Post, Req, Res, UseFilters } from '@nestjs/common';
import { Param, Query } from '../common/request-params';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/principal';
import { ApiError, notFound } from '../common/errors';
import { PortalBrandService } from '../portal/portal-brand.service';
import { cookieOf, field, seeOther, sendHtml, setCookie } from '../portal/portal-http';
import { LimitedPerAddress } from '../rate-limits/rate-limit-family';
import { type PortalTeamSession, WEBHOOK_PORTAL_PREFIX, WebhookPortalAccessService } from './webhook-portal-access.service';
import { WebhookPortalPageFilter } from './webhook-portal-page.filter';
import { WebhookPortalService } from './webhook-portal.service';
import { endpointHref, endpointPage, endpointsPage, messageHref, messagePage, type WebhookPageFrame } from './webhook-portal-views';

export const WEBHOOK_PORTAL_COOKIE = 'lf_webhook_portal';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;
const FLASH: Record<string, string> = {
  resent: 'The message is being sent again.',
  disabled: 'The endpoint is disabled: no events are sent to it until it is enabled again.',
  enabled: 'The endpoint is enabled.',
};

/**
 * The hosted webhook portal (Svix's App Portal): server-rendered pages and plain HTML forms
 * under /webhook-portal on the API's port, opened from `GET /v2/team/svix/url`. HTTP only: who
 * may enter is WebhookPortalAccessService's, what is shown and done WebhookPortalService's.
 */
@ApiExcludeController()
@Public()
@LimitedPerAddress('portal')
@UseFilters(WebhookPortalPageFilter)
@Controller('webhook-portal')
export class WebhookPortalPagesController {
  constructor(
    private readonly access: WebhookPortalAccessService,
    private readonly portal: WebhookPortalService,
    private readonly brands: PortalBrandService,
  ) {}

  @Get('launch/:token')
  async launch(@Param('token') token: string, @Res() reply: FastifyReply) {
    const opened = await this.access.openLaunch(token);
    setCookie(reply, WEBHOOK_PORTAL_COOKIE, opened.cookie, { path: WEBHOOK_PORTAL_PREFIX, maxAgeSeconds: opened.maxAgeSeconds });
    seeOther(reply, WEBHOOK_PORTAL_PREFIX);
  }

  @Get()
  async home(@Query('done') done: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.session(request);
    const frame = await this.frame(session, { flash: flashOf(done) });
    sendHtml(reply, 200, endpointsPage(frame, await this.portal.endpoints(session)), frame.brand);
  }

  @Get('endpoints/:endpoint_id')
  async endpoint(
    @Param('endpoint_id') endpointId: string,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const session = await this.session(request);
    const id = checkedId(endpointId, 'Webhook');
    const recovered = typeof query.recovered === 'string' && /^\d+$/.test(query.recovered) ? Number(query.recovered) : null;
    const flash = recovered !== null ? `${recovered} message${recovered === 1 ? ' is' : 's are'} being sent again.` : flashOf(query.done);
    await this.renderEndpoint(reply, session, id, typeof query.after === 'string' ? query.after : undefined, 200, { flash });
  }

  @Get('endpoints/:endpoint_id/messages/:message_id')
  async message(
    @Param('endpoint_id') endpointId: string,
    @Param('message_id') messageId: string,
    @Query('done') done: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const session = await this.session(request);
    await this.renderMessage(reply, session, checkedId(endpointId, 'Webhook'), checkedId(messageId, 'Message'), 200, { flash: flashOf(done) });
  }

  @Post('endpoints/:endpoint_id/messages/:message_id/resend')
  async resend(@Param('endpoint_id') endpointId: string, @Param('message_id') messageId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.checkedForm(request);
    const [endpoint, message] = [checkedId(endpointId, 'Webhook'), checkedId(messageId, 'Message')];
    try {
      await this.portal.resend(session, endpoint, message);
    } catch (error) {
      if (isConflict(error)) return this.renderMessage(reply, session, endpoint, message, 409, { error: detailOf(error) });
      throw error;
    }
    seeOther(reply, `${messageHref(endpoint, message)}?done=resent`);
  }

  @Post('endpoints/:endpoint_id/recover')
  async recover(@Param('endpoint_id') endpointId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.checkedForm(request);
    const id = checkedId(endpointId, 'Webhook');
    const given = field(request.body, 'since').trim();
    // datetime-local sends local wall time without a zone; the page says the field is UTC.
    const since = DATETIME.test(given) ? new Date(`${given}Z`) : null;
    if (!since || Number.isNaN(since.getTime()) || since.getTime() > Date.now()) {
      return this.renderEndpoint(reply, session, id, undefined, 422, { error: 'Give a date and time in the past to recover from.' });
    }
    let recovered: number;
    try {
      recovered = await this.portal.recover(session, id, since);
    } catch (error) {
      if (isConflict(error)) return this.renderEndpoint(reply, session, id, undefined, 409, { error: detailOf(error) });
      throw error;
    }
    seeOther(reply, `${endpointHref(id)}?recovered=${recovered}`);
  }

  @Post('endpoints/:endpoint_id/:action')
  async toggle(@Param('endpoint_id') endpointId: string, @Param('action') action: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.checkedForm(request);
    const id = checkedId(endpointId, 'Webhook');
    if (action !== 'disable' && action !== 'enable') throw notFound('Action');
    await this.portal.setDisabled(session, id, action === 'disable');
    seeOther(reply, `${endpointHref(id)}?done=${action}d`);
  }

  // -------------------------------------------------------------------------------------------

  private async renderEndpoint(
    reply: FastifyReply,
    session: PortalTeamSession,
    id: string,
    after: string | undefined,
    status: number,
    notes: { flash?: string | null; error?: string | null },
  ) {
    const endpoint = await this.portal.endpoint(session, id);
    const page = await this.portal.messagePage(session, id, after);
    const frame = await this.frame(session, notes);
    sendHtml(reply, status, endpointPage(frame, endpoint, page.data, page.next_cursor), frame.brand);
  }

  private async renderMessage(
    reply: FastifyReply,
    session: PortalTeamSession,
    endpointId: string,
    messageId: string,
    status: number,
    notes: { flash?: string | null; error?: string | null },
  ) {
    const endpoint = await this.portal.endpoint(session, endpointId);
    const { message, attempts } = await this.portal.message(session, endpointId, messageId);
    const frame = await this.frame(session, notes);
    sendHtml(reply, status, messagePage(frame, endpoint, message, attempts), frame.brand);
  }

  private async session(request: FastifyRequest): Promise<PortalTeamSession> {
    const session = await this.access.session(cookieOf(request, WEBHOOK_PORTAL_COOKIE));
    if (!session) throw new ApiError(401, 'No webhook portal session.');
    return session;
  }

  /** The session of a form POST whose CSRF token is its own (403 otherwise). */
  private async checkedForm(request: FastifyRequest): Promise<PortalTeamSession> {
    const session = await this.session(request);
    if (!this.access.csrfMatches(session, field(request.body, 'csrf'))) throw new ApiError(403, 'Form expired.');
    return session;
  }

  private async frame(session: PortalTeamSession, notes: { flash?: string | null; error?: string | null }): Promise<WebhookPageFrame> {
    return { brand: await this.brands.of(session.teamId), environment: session.environment, csrf: session.csrf, ...notes };
  }
}

function checkedId(id: string, what: string): string {
  if (!UUID.test(id)) throw notFound(what);
  return id.toLowerCase();
}

function flashOf(done: unknown): string | null {
  return typeof done === 'string' ? (FLASH[done] ?? null) : null;
}

function isConflict(error: unknown): error is HttpException {
  return error instanceof HttpException && error.getStatus() === 409;
}

/** The service's own refusal wording (a `{detail}` string). */
function detailOf(error: HttpException): string {
  const response = error.getResponse() as { detail?: unknown };
  return typeof response?.detail === 'string' ? response.detail : 'That could not be done now.';
}
