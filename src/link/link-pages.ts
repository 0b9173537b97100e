import { Eta } from 'eta';
import type { PortalBrand } from '../portal/portal-brand';
import { CSS, LAYOUT } from '../portal/views/layout';
import type { LinkAuthType } from '../adapters/sources/provider-auth';

/**
 * The hosted Link page (link_web_url) and the sandbox's stand-in for a provider's consent page:
 * server-rendered HTML and plain forms, in the team's portal brand. The link token travels in
 * the page's URL (as Junction's link_web_url carries it) and in hidden form fields; pages are
 * sent with no-referrer and no-store (portal-http.ts), so it does not leak onward.
 */
const LINK_PAGE = `<% layout('@layout') %>
<section aria-labelledby="link-h">
<h1 id="link-h">Connect a data source</h1>
<% if (it.error) { %><p role="alert" class="error"><%= it.error %></p><% } %>
<% if (it.providers.length === 0) { %><p>There is nothing to connect here.</p><% } %>
<% it.providers.forEach(function (p) { %>
<section aria-labelledby="p-<%= p.slug %>">
<h2 id="p-<%= p.slug %>"><%= p.name %></h2>
<p><%= p.description %></p>
<% if (p.authType === 'oauth') { %>
<a class="button" href="/link/oauth/<%= p.slug %>?token=<%= encodeURIComponent(it.token) %>">Connect <%= p.name %></a>
<% } else if (p.authType === 'password') { %>
<form method="post" action="/link/password/<%= p.slug %>">
<input type="hidden" name="token" value="<%= it.token %>">
<p><label>Username or e-mail<br><input name="username" autocomplete="username" required></label></p>
<p><label>Password<br><input name="password" type="password" autocomplete="current-password" required></label></p>
<button>Connect <%= p.name %></button>
</form>
<% } else { %>
<form method="post" action="/link/email/<%= p.slug %>">
<input type="hidden" name="token" value="<%= it.token %>">
<p><label>E-mail address of your <%= p.name %> account<br><input name="email" type="email" autocomplete="email" required></label></p>
<button>Send the invitation</button>
</form>
<% } %>
</section>
<% }) %>
<% if (it.closeUrl) { %><p><a class="button secondary" href="<%= it.closeUrl %>">Close</a></p><% } %>
<% if (it.sandbox) { %><p class="muted">Sandbox: any credentials connect, except the password "wrong-password"; a username starting with "mfa" asks for the code 123456.</p><% } %>
</section>`;

const MFA_PAGE = `<% layout('@layout') %>
<section aria-labelledby="mfa-h">
<h1 id="mfa-h">Enter your code</h1>
<% if (it.error) { %><p role="alert" class="error"><%= it.error %></p><% } %>
<p><%= it.name %> sent a code by <%= it.method %> to <%= it.hint %>.</p>
<form method="post" action="/link/password/<%= it.slug %>/mfa">
<input type="hidden" name="token" value="<%= it.token %>">
<p><label>Code<br><input name="mfa_code" inputmode="numeric" autocomplete="one-time-code" required></label></p>
<button>Connect</button>
</form>
</section>`;

const DONE_PAGE = `<% layout('@layout') %>
<section aria-labelledby="done-h">
<h1 id="done-h"><%= it.heading %></h1>
<p<% if (it.alert) { %> role="alert"<% } %>><%= it.message %></p>
<% if (it.retryUrl) { %><p><a class="button" href="<%= it.retryUrl %>">Try again</a></p><% } %>
</section>`;

const CONSENT_PAGE = `<% layout('@layout') %>
<section aria-labelledby="consent-h">
<h1 id="consent-h">Sandbox <%= it.name %>: allow access?</h1>
<p>This page stands in for <%= it.name %>'s own sign-in in the sandbox. Choose what the user answers.</p>
<p><a class="button" href="<%= it.allow %>">Allow</a></p>
<p><a class="button secondary" href="<%= it.partial %>">Allow without heart rate</a></p>
<p><a class="button secondary" href="<%= it.deny %>">Deny</a></p>
</section>`;

const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true });
for (const [name, template] of Object.entries({ layout: LAYOUT, link: LINK_PAGE, mfa: MFA_PAGE, done: DONE_PAGE, consent: CONSENT_PAGE })) {
  eta.loadTemplate(`@${name}`, template);
}

function page(name: string, title: string, brand: PortalBrand, data: object): string {
  return eta.render(`@${name}`, { ...data, title, brand, csrf: null, css: CSS, fallbackHelp: 'Contact the app that sent you here.' });
}

export interface OfferedProvider {
  slug: string;
  name: string;
  description: string;
  authType: LinkAuthType;
}

export function linkPage(
  brand: PortalBrand,
  model: { token: string; providers: OfferedProvider[]; sandbox: boolean; closeUrl: string | null; error?: string | null },
): string {
  return page('link', 'Connect a data source', brand, { ...model, error: model.error ?? null });
}

export function mfaPage(brand: PortalBrand, model: { token: string; slug: string; name: string; method: string; hint: string; error?: string | null }): string {
  return page('mfa', 'Enter your code', brand, { ...model, error: model.error ?? null });
}

export function donePage(brand: PortalBrand, model: { heading: string; message: string; alert: boolean; retryUrl?: string | null }): string {
  return page('done', model.heading, brand, { ...model, retryUrl: model.retryUrl ?? null });
}

/** The page after a connection when the team gave no redirect_url. */
export function connectedPage(brand: PortalBrand, providerName: string): string {
  return donePage(brand, { heading: `${providerName} is connected`, message: 'You can close this window.', alert: false });
}

export function consentPage(brand: PortalBrand, model: { name: string; allow: string; partial: string; deny: string }): string {
  return page('consent', `Allow access to ${model.name}?`, brand, model);
}
