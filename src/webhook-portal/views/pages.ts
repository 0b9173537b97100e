/** The webhook portal's pages (Eta templates inside the patient portal's '@layout'); their data types are in webhook-portal-views.ts. */

export const ENDPOINTS_PAGE = `<% layout('@layout') %>
<% if (it.flash) { %><p class="notice ok" role="status"><%= it.flash %></p><% } %>
<section aria-labelledby="endpoints-h">
<h1 id="endpoints-h">Webhook endpoints</h1>
<p class="muted">Where <%= it.brand.name %> sends events in the <strong><%= it.environment %></strong> environment.</p>
<% if (it.endpoints.length === 0) { %><p>There are no webhook endpoints yet.</p><% } else { %>
<table>
<thead><tr><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Events</th></tr></thead>
<tbody>
<% it.endpoints.forEach(function (e) { %><tr><th scope="row"><a href="<%= e.href %>"><%= e.url %></a><% if (e.description) { %><br><span class="muted"><%= e.description %></span><% } %></th><td><span class="status"><%= e.state %></span></td><td><%= e.filter %></td></tr>
<% }) %></tbody>
</table>
<% } %>
</section>`;

export const ENDPOINT_PAGE = `<% layout('@layout') %>
<% if (it.flash) { %><p class="notice ok" role="status"><%= it.flash %></p><% } %>
<% if (it.error) { %><p class="notice error" role="alert"><%= it.error %></p><% } %>
<p><a href="<%= it.home %>">All endpoints</a></p>
<section aria-labelledby="endpoint-h">
<h1 id="endpoint-h"><%= it.e.url %></h1>
<% if (it.e.description) { %><p><%= it.e.description %></p><% } %>
<p>Status: <span class="status"><%= it.e.state %></span> · Events: <%= it.e.filter %></p>
<form method="post" action="<%= it.e.href %>/<%= it.e.disabled ? 'enable' : 'disable' %>">
<input type="hidden" name="csrf" value="<%= it.formCsrf %>">
<button class="<%= it.e.disabled ? '' : 'secondary' %>"><%= it.e.disabled ? 'Enable the endpoint' : 'Disable the endpoint' %></button>
</form>
</section>
<section aria-labelledby="recover-h">
<h2 id="recover-h">Recover failed messages</h2>
<p>Send again every message since a time whose attempts all failed, or that was cancelled while the endpoint was disabled.</p>
<form method="post" action="<%= it.e.href %>/recover">
<input type="hidden" name="csrf" value="<%= it.formCsrf %>">
<label for="since">Since (UTC)</label>
<input type="datetime-local" id="since" name="since" required value="<%= it.sinceDefault %>">
<button>Recover</button>
</form>
</section>
<section aria-labelledby="messages-h">
<h2 id="messages-h">Messages</h2>
<% if (it.messages.length === 0) { %><p>No messages yet.</p><% } else { %>
<table>
<thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Created (UTC)</th></tr></thead>
<tbody>
<% it.messages.forEach(function (m) { %><tr><th scope="row"><a href="<%= m.href %>"><%= m.eventType %></a><br><span class="muted"><%= m.id %></span></th><td><span class="status"><%= m.status %></span><br><%= m.attempts %> attempt<%= m.attempts === 1 ? '' : 's' %></td><td><time datetime="<%= m.createdAt %>"><%= m.created %></time></td></tr>
<% }) %></tbody>
</table>
<% if (it.nextHref) { %><p><a href="<%= it.nextHref %>">Older messages</a></p><% } %>
<% } %>
</section>`;

export const MESSAGE_PAGE = `<% layout('@layout') %>
<% if (it.flash) { %><p class="notice ok" role="status"><%= it.flash %></p><% } %>
<% if (it.error) { %><p class="notice error" role="alert"><%= it.error %></p><% } %>
<p><a href="<%= it.endpointHref %>">Back to <%= it.endpointUrl %></a></p>
<section aria-labelledby="message-h">
<h1 id="message-h"><%= it.m.eventType %></h1>
<p class="muted">Message <%= it.m.id %> · created <time datetime="<%= it.m.createdAt %>"><%= it.m.created %></time> UTC</p>
<p>Status: <span class="status"><%= it.m.status %></span><% if (it.m.reason) { %> (<%= it.m.reason %>)<% } %><% if (it.m.next) { %> · next attempt <%= it.m.next %> UTC<% } %></p>
<form method="post" action="<%= it.m.href %>/resend">
<input type="hidden" name="csrf" value="<%= it.formCsrf %>">
<button>Resend the message</button>
</form>
</section>
<section aria-labelledby="attempts-h">
<h2 id="attempts-h">Attempts</h2>
<% if (it.attempts.length === 0) { %><p>No attempt yet.</p><% } else { %>
<ol class="attempts" reversed>
<% it.attempts.forEach(function (a) { %><li>
<p><strong>Attempt <%= a.number %></strong><% if (a.manual) { %> (manual)<% } %> · <time datetime="<%= a.createdAt %>"><%= a.created %></time> UTC</p>
<p><span class="status"><%= a.status %></span><% if (a.code !== null) { %> HTTP <%= a.code %><% } %> · <%= a.duration %><% if (a.error) { %> · <%= a.error %><% } %></p>
<% if (a.response) { %><pre class="excerpt"><%= a.response %></pre><% } else { %><p class="muted">No response body.</p><% } %>
</li>
<% }) %></ol>
<% } %>
</section>
<section aria-labelledby="payload-h">
<h2 id="payload-h">Payload</h2>
<pre class="payload" tabindex="0" role="region" aria-label="The payload as JSON"><%= it.m.payload %></pre>
</section>`;

/** What the webhook portal adds to the patient portal's stylesheet: room for tables, and payloads. */
export const EXTRA_CSS = `main,footer{max-width:960px}
th .muted{font-weight:400}.status{white-space:nowrap}
.attempts{list-style:none;padding:0;margin:0}.attempts li{border-left:3px solid var(--brand);padding:2px 0 8px 12px;margin:0 0 12px}.attempts p{margin:0 0 4px}
.excerpt{background:#f5f6f8;border:1px solid #d9dde3;border-radius:6px;padding:6px 8px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;font:13px/1.45 ui-monospace,Menlo,Consolas,monospace}
.payload{background:#f5f6f8;border:1px solid #d9dde3;border-radius:6px;padding:12px;max-height:32rem;overflow:auto}
input[type=datetime-local]{font:inherit;padding:10px;border:1px solid #6b6b6b;border-radius:6px;margin-right:8px}`;
