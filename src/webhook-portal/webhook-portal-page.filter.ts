import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { redactUrl } from '../common/redaction';
import { NEUTRAL_BRAND, type PortalBrand } from '../portal/portal-brand';
import { sendHtml } from '../portal/portal-http';
import { problemPage } from '../portal/portal-views';
import { type LaunchProblem, WebhookPortalLaunchError } from './webhook-portal-access.service';

const BRAND: PortalBrand = { ...NEUTRAL_BRAND, name: 'Webhook portal' };
const AGAIN = 'Ask for a new webhook portal link (GET /v2/team/svix/url) and open it.';
/** The footer of these pages: developers read them, not the patients the portal's footer speaks to. */
const FRAME = { brand: BRAND, fallbackHelp: 'This portal shows a team its webhook endpoints and what was sent to them.' };

/** Each launch problem's status and words. */
const LAUNCH_PAGES: Record<LaunchProblem, { status: number; heading: string }> = {
  invalid: { status: 401, heading: 'This link is not valid' },
  expired: { status: 410, heading: 'This link has expired' },
  used: { status: 410, heading: 'This link was already used' },
  revoked: { status: 410, heading: 'This link was revoked' },
};

/**
 * Every error on a webhook portal page becomes an HTML page with the right status: launch
 * problems, a session that ended (401), a form from an old page (403), an unknown endpoint or
 * message (404) — never a stack trace or a JSON body. Unexpected errors are logged (the URL
 * redacted) and shown as a 500 page.
 */
@Catch()
export class WebhookPortalPageFilter implements ExceptionFilter {
  private readonly logger = new Logger('webhook-portal');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    if (exception instanceof WebhookPortalLaunchError) {
      const page = LAUNCH_PAGES[exception.problem];
      return sendHtml(reply, page.status, problemPage(FRAME, page.heading, AGAIN), BRAND);
    }
    const status = exception instanceof HttpException ? exception.getStatus() : (exception as { statusCode?: number })?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const [heading, message] =
        status === 401
          ? ['Your session has ended', AGAIN]
          : status === 403
            ? ['This form has expired', 'Go back, reload the page and try again.']
            : status === 404 || status === 422
              ? ['Page not found', 'There is nothing at this address.']
              : status === 429
                ? ['Too many tries', 'Please wait a few minutes, then try again.']
                : ['We could not do that', 'Please go back and try again.'];
      return sendHtml(reply, status === 422 ? 404 : status, problemPage(FRAME, heading, message), BRAND);
    }
    this.logger.error(
      `${request.method} ${redactUrl(request.url)}: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`,
    );
    sendHtml(reply, 500, problemPage(FRAME, 'Something went wrong', 'Please try again in a few minutes.'), BRAND);
  }
}
