/**
 * The page frame: brand header, main, support footer, and the whole stylesheet inline (about
 * 2 kB; one request per page, nothing from a CDN). Eta templates: `<%= %>` escapes (Eta's
 * XML escaping), `<%~ %>` inserts trusted markup (the child page, the stylesheet).
 */
export const LAYOUT = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title><%= it.title %> · <%= it.brand.name %></title>
<style>:root{--brand:<%= it.brand.color %>}<%~ it.css %></style>
</head>
<body>
<a class="skip" href="#main">Skip to main content</a>
<header class="top">
<% if (it.brand.logoUrl) { %><img src="<%= it.brand.logoUrl %>" alt="" height="32"><% } %>
<span class="brand"><%= it.brand.name %></span>
<% if (it.csrf) { %><form method="post" action="/portal/logout" class="logout"><input type="hidden" name="csrf" value="<%= it.csrf %>"><button class="secondary small">Sign out</button></form><% } %>
</header>
<main id="main">
<%~ it.body %>
</main>
<footer>
<p>Need help?
<% if (it.brand.supportPhone) { %> Call <a href="tel:<%= it.brand.supportPhone.replace(/[^0-9+]/g, '') %>"><%= it.brand.supportPhone %></a>.<% } %>
<% if (it.brand.supportEmail) { %> E-mail <a href="mailto:<%= it.brand.supportEmail %>"><%= it.brand.supportEmail %></a>.<% } %>
<% if (it.brand.supportUrl) { %> <a href="<%= it.brand.supportUrl %>">Visit our help page</a>.<% } %>
<% if (!it.brand.supportPhone && !it.brand.supportEmail && !it.brand.supportUrl) { %> <%= it.fallbackHelp ?? 'Contact the service that ordered your test.' %><% } %>
</p>
</footer>
</body>
</html>`;

export const CSS = `*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f5f6f8}
.skip{position:absolute;left:-9999px}.skip:focus{left:8px;top:8px;background:#fff;padding:8px;z-index:2}
.top{display:flex;align-items:center;gap:12px;padding:10px 16px;background:#fff;border-bottom:4px solid var(--brand)}
.top img{max-height:32px;width:auto}.brand{font-weight:700;font-size:1.1rem;flex:1}
main,footer{max-width:720px;margin:0 auto;padding:16px}
footer{color:#4a4a4a}
section{background:#fff;border:1px solid #d9dde3;border-radius:8px;padding:16px;margin:0 0 16px}
h1{font-size:1.45rem;line-height:1.25;margin:0 0 8px}h2{font-size:1.15rem;margin:0 0 8px}
a{color:var(--brand)}
.button,button{display:inline-block;min-height:44px;padding:10px 16px;margin:4px 0;border-radius:6px;border:2px solid var(--brand);background:var(--brand);color:#fff;font:inherit;font-weight:600;text-decoration:none;cursor:pointer}
.secondary{background:#fff;color:var(--brand)}
.small{min-height:36px;padding:4px 10px;font-size:.9rem}
:focus-visible{outline:3px solid #111;outline-offset:2px}
.status{display:inline-block;padding:2px 10px;border-radius:12px;background:#e8edf3;font-weight:600}
.muted{color:#4a4a4a}
.timeline{list-style:none;padding:0;margin:0}.timeline li{padding:4px 0 8px 14px;border-left:3px solid var(--brand)}
.timeline time{font-size:.9rem;color:#4a4a4a}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:8px 4px;border-bottom:1px solid #e1e4e8;vertical-align:top}
td,th{overflow-wrap:anywhere}
.flag{font-weight:700;color:#a1000e}
.notice{padding:12px;border-radius:6px;background:#fff5d9;border:1px solid #c99700}
.ok{background:#e6f5ea;border-color:#2e7d40}.error{background:#fdecee;border-color:#b00020}
fieldset{border:1px solid #d9dde3;border-radius:6px;margin:0 0 12px;padding:8px 12px}
legend{font-weight:600;padding:0 4px}
.slots label{display:flex;align-items:center;gap:10px;min-height:44px}
.slots input{width:20px;height:20px}
label{display:block;font-weight:600;margin:8px 0 4px}
input[type=text],select{font:inherit;padding:10px;border:1px solid #6b6b6b;border-radius:6px;width:100%;max-width:20rem}
/* A select as wide as its longest choice (cancellation reasons are sentences), at most the column. */
select{width:auto;max-width:100%}
.code{font-size:1.4rem;letter-spacing:.3em;max-width:12rem}
ul.plain{padding-left:20px}`;
