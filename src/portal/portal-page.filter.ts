import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { redactUrl } from '../common/redaction';
import { PortalLinkError, type LinkProblem } from './portal-access.service';
import { NEUTRAL_BRAND } from './portal-brand';
import { PortalBrandService } from './portal-brand.service';
import { sendHtml } from './portal-http';
import { problemPage } from './portal-views';

/** Each link problem's status and words. */
const LINK_PAGES: Record<LinkProblem, { status: number; heading: string; message: string }> = {
  unknown: { status: 404, heading: 'We could not find this link', message: 'Check that the whole link was copied, or ask for a new one.' },
  expired: {
    status: 410,
    heading: 'This link has expired',
    message: 'For your security, links stop working after a while. Ask for a new link, or contact us below.',
  },
  revoked: { status: 410, heading: 'This link no longer works', message: 'It was switched off. If you did not expect this, contact us below.' },
  used: {
    status: 410,
    heading: 'This link was already used',
    message: 'A sign-in link works once. Go back to the app you came from and open the portal again.',
  },
  locked: { status: 403, heading: 'This link is locked', message: 'Too many codes were tried or sent for it. Contact us below for a new link.' },
};

/**
 * Every error on a portal page becomes an HTML page with the right status and plain words: link
 * problems, a missing order (404), a refused action, a session that ended (401) — never a stack
 * trace or a JSON body. Unexpected errors are logged and shown as a 500 page.
 */
@Catch()
export class PortalPageFilter implements ExceptionFilter {
  private readonly logger = new Logger('portal');

  constructor(private readonly brands: PortalBrandService) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    if (exception instanceof PortalLinkError) {
      const brand = exception.teamId ? await this.brands.of(exception.teamId).catch(() => NEUTRAL_BRAND) : NEUTRAL_BRAND;
      const page = LINK_PAGES[exception.problem];
      return sendHtml(reply, page.status, problemPage({ brand }, page.heading, page.message), brand);
    }
    const status = exception instanceof HttpException ? exception.getStatus() : (exception as { statusCode?: number })?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const [heading, message] =
        status === 401
          ? ['Please open your link again', 'Your session has ended. Open the link from your message or app again.']
          : status === 404 || status === 422
            ? ['Page not found', 'There is nothing at this address.']
            : status === 429
              ? ['Too many tries', 'Please wait a few minutes, then open your link again.']
              : ['We could not do that', 'Please go back and try again.'];
      return sendHtml(reply, status === 422 ? 404 : status, problemPage({ brand: NEUTRAL_BRAND }, heading, message), NEUTRAL_BRAND);
    }
    this.logger.error(
      `${request.method} ${redactUrl(request.url)}: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`,
    );
    sendHtml(reply, 500, problemPage({ brand: NEUTRAL_BRAND }, 'Something went wrong', 'Please try again in a few minutes.'), NEUTRAL_BRAND);
  }
}
