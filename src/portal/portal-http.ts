import type { FastifyReply, FastifyRequest } from 'fastify';
import { unstorableProblem } from '../common/validation';
import { logoOrigin, type PortalBrand } from './portal-brand';

export const SESSION_COOKIE = 'lf_portal_session';
export const DEVICE_COOKIE = 'lf_portal_device';

/** A PDF the patient downloads: never cached, never sniffed as anything else. */
export function sendPdf(reply: FastifyReply, pdf: Buffer, filename: string): void {
  void reply
    .status(200)
    .header('content-type', 'application/pdf')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(pdf);
}

/**
 * An HTML page with the headers every portal page carries: no caching (PHI), no referrer (launch
 * tokens are in URLs), no framing, and a Content-Security-Policy allowing only this origin, the
 * inline stylesheet and the team's logo.
 *
 * `formTargets`: origins besides this one a form on the page may end at. Chromium applies
 * form-action to the redirects that follow a form's POST, so a form whose answer redirects to
 * another site (the hosted Link page to the team's redirect_url) must name that site.
 */
export function sendHtml(reply: FastifyReply, status: number, html: string, brand: PortalBrand, formTargets: string[] = []): void {
  const logo = logoOrigin(brand);
  const formAction = ["'self'", ...formTargets].join(' ');
  void reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header(
      'content-security-policy',
      `default-src 'none'; style-src 'unsafe-inline'; img-src 'self'${logo ? ` ${logo}` : ''}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    )
    .send(html);
}

/** 303: after a form, the browser GETs the next page (a reload never resubmits). */
export function seeOther(reply: FastifyReply, location: string): void {
  void reply.status(303).header('location', location).header('cache-control', 'no-store').send();
}

/*
 * Cookies without @fastify/cookie: it loads its cookie codec with a dynamic import() of an ES
 * module, which Jest's CommonJS runtime cannot run, so the plugin cannot be registered in the test
 * stacks. The portal's cookies are its own signed tokens (base64url, digits, '.', '-'), so
 * neither side needs encoding: a value outside that alphabet is simply not ours.
 */
const TOKEN_VALUE = /^[A-Za-z0-9._-]{1,400}$/;

export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) {
      const value = part.slice(at + 1).trim();
      return TOKEN_VALUE.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** Portal cookies: HttpOnly, Secure, SameSite=Lax (so a link opened from an e-mail or SMS still carries them). */
export function setCookie(reply: FastifyReply, name: string, value: string, options: { path: string; maxAgeSeconds: number }): void {
  if (value !== '' && !TOKEN_VALUE.test(value)) throw new Error('portal cookie values are signed tokens');
  const cookie = `${name}=${value}; Max-Age=${options.maxAgeSeconds}; Path=${options.path}; HttpOnly; Secure; SameSite=Lax`;
  const existing = reply.getHeader('set-cookie');
  const all = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  void reply.header('set-cookie', [...all, cookie]);
}

export function clearCookie(reply: FastifyReply, name: string, path: string): void {
  setCookie(reply, name, '', { path, maxAgeSeconds: 0 });
}

/**
 * A form field as a string (urlencoded bodies; repeated fields take the first). These forms bypass
 * the validation pipe: a value Postgres could not store (NUL, a lone surrogate) reads as absent,
 * so it gets the answer a missing or wrong value gets instead of failing at the database.
 */
export function field(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | null)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first !== 'string' || unstorableProblem(first)) return '';
  // At most 2,000 UTF-16 units, without cutting a surrogate pair in two.
  const end = first.length > FIELD_MAX && /[\ud800-\udbff]/.test(first[FIELD_MAX - 1]) ? FIELD_MAX - 1 : FIELD_MAX;
  return first.slice(0, end);
}

const FIELD_MAX = 2000;
