import { Controller, Get, HttpException, Inject, Post, Req, Res, UseFilters } from '@nestjs/common';
import { Param, Query } from '../common/request-params';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DevOutbox } from '../adapters/notifications/notifications';
import { Public } from '../auth/principal';
import { LimitedPerAddress } from '../rate-limits/rate-limit-family';
import { ApiError, notFound } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { type LiveSession, PortalAccessService, type StartedSession } from './portal-access.service';
import { NEUTRAL_BRAND, type PortalBrand } from './portal-brand';
import { PortalBrandService } from './portal-brand.service';
import { clearCookie, cookieOf, DEVICE_COOKIE, field, seeOther, SESSION_COOKIE, sendHtml, sendPdf, setCookie } from './portal-http';
import { PortalOrdersService } from './portal-orders.service';
import { PortalPageFilter } from './portal-page.filter';
import { PORTAL_PREFIX, shortLinkPath } from './portal-urls.service';
import { orderPage, ordersPage, outboxPage, slotsPage, verifyPage } from './portal-views';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FLASH: Record<string, string> = {
  booked: 'Your appointment is booked.',
  rescheduled: 'Your appointment was moved.',
  cancelled: 'Your appointment was cancelled.',
};

/**
 * The hosted patient portal: server-rendered HTML pages and plain HTML forms (they work without
 * JavaScript), on the API's port: short links at /p/<code>, everything else under /portal.
 * HTTP only: the rules are in PortalAccessService and PortalOrdersService.
 */
@ApiExcludeController()
@Public()
@LimitedPerAddress('portal')
@UseFilters(PortalPageFilter)
@Controller()
export class PortalPagesController {
  constructor(
    private readonly access: PortalAccessService,
    private readonly orders: PortalOrdersService,
    private readonly brands: PortalBrandService,
    private readonly outbox: DevOutbox,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  // --- links ---------------------------------------------------------------------------------

  @Get('portal/launch/:token')
  async launch(@Param('token') token: string, @Res() reply: FastifyReply) {
    this.enter(reply, await this.access.openLaunch(token));
  }

  @Get('p/:code')
  async shortLink(@Param('code') code: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const opened = await this.access.openShortLink(code, cookieOf(request, DEVICE_COOKIE));
    if ('started' in opened) return this.enter(reply, opened.started);
    const brand = await this.brand(opened.link.team_id);
    sendHtml(reply, 200, verifyPage({ brand }, { code, channels: opened.channels, codeMinutes: this.codeMinutes() }), brand);
  }

  @Post('p/:code/send')
  async sendCode(@Param('code') code: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const opened = await this.access.openShortLink(code, undefined);
    if ('started' in opened) return;
    const brand = await this.brand(opened.link.team_id);
    const chosen = opened.channels.find((channel) => channel.channel === field(request.body, 'channel'));
    if (!chosen || !(await this.access.sendCode(code, chosen.channel, brand.name))) {
      return sendHtml(
        reply,
        422,
        verifyPage({ brand }, { code, channels: opened.channels, error: 'Choose where we should send your code.', codeMinutes: this.codeMinutes() }),
        brand,
      );
    }
    sendHtml(reply, 200, verifyPage({ brand }, { code, channels: opened.channels, sentTo: chosen.masked, codeMinutes: this.codeMinutes() }), brand);
  }

  @Post('p/:code/verify')
  async verifyCode(@Param('code') code: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const checked = await this.access.verifyCode(code, field(request.body, 'otp').trim());
    if (checked.outcome === 'accepted') return this.enter(reply, checked.started, code);
    const opened = await this.access.openShortLink(code, undefined);
    if ('started' in opened) return;
    const brand = await this.brand(opened.link.team_id);
    const error =
      checked.outcome === 'expired'
        ? 'That code has expired. Ask for a new one.'
        : `That code is not right. You can try ${checked.attemptsLeft} more time${checked.attemptsLeft === 1 ? '' : 's'}.`;
    const sentTo = checked.outcome === 'wrong' ? (opened.channels.find((channel) => channel.channel === opened.link.otp_channel)?.masked ?? null) : null;
    sendHtml(reply, 422, verifyPage({ brand }, { code, channels: opened.channels, sentTo, error, codeMinutes: this.codeMinutes() }), brand);
  }

  // --- pages of a session --------------------------------------------------------------------

  @Get('portal')
  async home(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const live = await this.session(request);
    const ids = await this.orders.visibleOrderIds(live);
    if (ids.length === 1) return seeOther(reply, `${PORTAL_PREFIX}/orders/${ids[0]}`);
    const views = await Promise.all(ids.map((id) => this.orders.order(live, id).then((order) => order.order)));
    const brand = await this.brand(live.session.team_id);
    sendHtml(reply, 200, ordersPage({ brand, csrf: live.csrf }, views), brand);
  }

  @Get('portal/orders/:order_id')
  async order(@Param('order_id') orderId: string, @Query('done') done: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const live = await this.session(request);
    await this.renderOrder(reply, live, checkedId(orderId), 200, { flash: typeof done === 'string' ? (FLASH[done] ?? null) : null });
  }

  @Get('portal/orders/:order_id/results.pdf')
  async resultPdf(@Param('order_id') orderId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const live = await this.session(request);
    const id = checkedId(orderId);
    sendPdf(reply, await this.orders.resultPdf(live, id), `lab-report-${id}.pdf`);
  }

  @Get('portal/orders/:order_id/instructions.pdf')
  async instructionsPdf(@Param('order_id') orderId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const live = await this.session(request);
    const id = checkedId(orderId);
    sendPdf(reply, await this.orders.instructionsPdf(live, id), `collection-instructions-${id}.pdf`);
  }

  @Get('portal/orders/:order_id/slots')
  async slots(@Param('order_id') orderId: string, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const live = await this.session(request);
    const action = query.action === 'reschedule' ? 'reschedule' : 'book';
    const startDate = typeof query.start_date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(query.start_date) ? query.start_date : undefined;
    const slots = await this.orders.slots(live, checkedId(orderId), startDate);
    const brand = await this.brand(live.session.team_id);
    sendHtml(reply, 200, slotsPage({ brand, csrf: live.csrf }, orderId, action, slots), brand);
  }

  @Post('portal/orders/:order_id/:action')
  async act(@Param('order_id') orderId: string, @Param('action') action: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const live = await this.session(request);
    const id = checkedId(orderId);
    if (!this.access.csrfMatches(live, field(request.body, 'csrf'))) throw new ApiError(403, 'Form expired.');
    try {
      if (action === 'book') await this.orders.book(live, id, field(request.body, 'booking_key'));
      else if (action === 'reschedule') await this.orders.reschedule(live, id, field(request.body, 'booking_key'));
      else if (action === 'cancel') await this.orders.cancel(live, id, field(request.body, 'reason'));
      else throw notFound('Action');
    } catch (error) {
      // A refusal the API would answer with 400/409/422 (a slot just taken, an order that moved on): say it on the order page.
      if (error instanceof HttpException && [400, 409, 422].includes(error.getStatus())) {
        return this.renderOrder(reply, live, id, 409, {
          error: `We could not ${action === 'cancel' ? 'cancel your appointment' : 'book that time'}: ${refusalText(error)}`,
        });
      }
      throw error;
    }
    seeOther(reply, `${PORTAL_PREFIX}/orders/${id}?done=${action === 'book' ? 'booked' : action === 'reschedule' ? 'rescheduled' : 'cancelled'}`);
  }

  @Post('portal/logout')
  async logout(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const live = await this.access.session(cookieOf(request, SESSION_COOKIE));
    if (live && this.access.csrfMatches(live, field(request.body, 'csrf'))) await this.access.endSession(live);
    clearCookie(reply, SESSION_COOKIE, PORTAL_PREFIX);
    sendHtml(
      reply,
      200,
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Signed out</title></head><body><main><h1>You are signed out</h1></main></body></html>',
      NEUTRAL_BRAND,
    );
  }

  /** Development only: the messages this process sent (codes included), so nobody needs a mail server. */
  @Get('portal/dev/outbox')
  devOutbox(@Res() reply: FastifyReply) {
    if (this.config.env !== 'development') throw notFound('Page');
    sendHtml(reply, 200, outboxPage({ brand: NEUTRAL_BRAND }, this.outbox.list()), NEUTRAL_BRAND);
  }

  // -------------------------------------------------------------------------------------------

  /** Sets the session (and, after a code, the device) cookie and opens the link's order or the order list. */
  private enter(reply: FastifyReply, started: StartedSession, code?: string): void {
    const lifetimes = this.access.cookieLifetimes(started.link);
    setCookie(reply, SESSION_COOKIE, started.sessionCookie, { path: PORTAL_PREFIX, maxAgeSeconds: lifetimes.sessionSeconds });
    if (started.deviceCookie && code)
      setCookie(reply, DEVICE_COOKIE, started.deviceCookie, { path: shortLinkPath(code), maxAgeSeconds: lifetimes.deviceSeconds });
    seeOther(reply, started.link.order_id ? `${PORTAL_PREFIX}/orders/${started.link.order_id}` : PORTAL_PREFIX);
  }

  private async renderOrder(reply: FastifyReply, live: LiveSession, orderId: string, status: number, notes: { flash?: string | null; error?: string | null }) {
    const model = await this.orders.order(live, orderId);
    const orderCount = (await this.orders.visibleOrderIds(live)).length;
    const reasons = model.appointment?.canCancel ? this.orders.cancellationReasons(model.appointment.kind) : [];
    const brand = await this.brand(live.session.team_id);
    sendHtml(reply, status, orderPage({ brand, csrf: live.csrf }, { ...model, orderCount, reasons, ...notes }), brand);
  }

  private async session(request: FastifyRequest): Promise<LiveSession> {
    const live = await this.access.session(cookieOf(request, SESSION_COOKIE));
    if (!live) throw new ApiError(401, 'No portal session.');
    return live;
  }

  private async brand(teamId: string): Promise<PortalBrand> {
    return this.brands.of(teamId);
  }

  private codeMinutes(): number {
    return Math.max(1, Math.round(this.config.portal.codeTtlMs / 60_000));
  }
}

function checkedId(id: string): string {
  if (!UUID.test(id)) throw notFound('Order');
  return id.toLowerCase();
}

/** The API's own refusal wording (a `{detail}` string), never user input. */
function refusalText(error: HttpException): string {
  const response = error.getResponse() as { detail?: unknown };
  if (typeof response?.detail === 'string') return response.detail;
  if (Array.isArray(response?.detail) && typeof response.detail[0]?.msg === 'string') return response.detail[0].msg as string;
  return 'please try again.';
}
