/** The portal's pages (Eta templates, each inside '@layout'); their data types are in portal-views.ts. */

export const ORDER_PAGE = `<% layout('@layout') %>
<% if (it.flash) { %><p class="notice ok" role="status"><%= it.flash %></p><% } %>
<% if (it.error) { %><p class="notice error" role="alert"><%= it.error %></p><% } %>
<section aria-labelledby="order-h">
<h1 id="order-h"><%= it.o.testName %></h1>
<p><span class="status"><%= it.o.statusWords %></span></p>
<p class="muted"><%= it.o.collection %> · <%= it.o.labName %> · order <%= it.o.shortId %></p>
<% if (it.o.orderCount > 1) { %><p><a href="/portal">All your orders</a></p><% } %>
</section>
<section aria-labelledby="tests-h">
<h2 id="tests-h">Your tests and how to prepare</h2>
<% if (it.o.fasting) { %><p class="notice"><strong>Fasting required.</strong> Do not eat or drink anything but water for 8 to 12 hours before your sample is collected.</p><% } else { %><p>No fasting needed.</p><% } %>
<ul class="plain"><% it.o.markers.forEach(function (name) { %><li><%= name %></li><% }) %></ul>
<% if (it.o.turnaround) { %><p><strong>When to expect results:</strong> <%= it.o.turnaround %></p><% } %>
<p><a href="/portal/orders/<%= it.o.id %>/instructions.pdf">How to give your sample, step by step (PDF)</a></p>
<% if (it.o.requisitionUrl) { %><p><a class="button secondary" href="<%= it.o.requisitionUrl %>">Download your requisition (PDF)</a></p><% } %>
</section>
<% if (it.appt) { %>
<section aria-labelledby="appt-h">
<h2 id="appt-h">Your appointment</h2>
<% if (it.appt.walkInOnly) { %><p>No appointment needed: walk in to a <%= it.o.labName %> patient service center with your requisition.</p>
<% } else if (it.appt.current) { %>
<p><strong><%= it.appt.current.when %></strong></p>
<p><%= it.appt.current.where %></p>
<p>Status: <span class="status"><%= it.appt.current.status %></span></p>
<% } else { %><p>You have no appointment booked yet.</p><% } %>
<% if (it.appt.canBook) { %><p><a class="button" href="/portal/orders/<%= it.o.id %>/slots?action=book">Find a time and book</a></p><% } %>
<% if (it.appt.canReschedule) { %><p><a class="button" href="/portal/orders/<%= it.o.id %>/slots?action=reschedule">Change the time</a></p><% } %>
<% if (it.appt.canCancel) { %>
<form method="post" action="/portal/orders/<%= it.o.id %>/cancel">
<input type="hidden" name="csrf" value="<%= it.csrf %>">
<label for="reason">Reason for cancelling</label>
<select id="reason" name="reason"><% it.appt.reasons.forEach(function (reason) { %><option value="<%= reason.id %>"><%= reason.name %></option><% }) %></select>
<button class="secondary">Cancel the appointment</button>
</form>
<% } %>
</section>
<% } %>
<section aria-labelledby="results-h">
<h2 id="results-h">Your results</h2>
<% if (it.results) { %>
<p class="muted"><%= it.results.summary %></p>
<table>
<thead><tr><th scope="col">Test</th><th scope="col">Result</th><th scope="col">Normal range</th></tr></thead>
<tbody>
<% it.results.rows.forEach(function (row) { %><tr><th scope="row"><%= row.name %></th><td><%= row.value %><% if (row.flag) { %> <span class="flag"><%= row.flag %></span><% } %></td><td><%= row.range %></td></tr>
<% }) %></tbody>
</table>
<% if (it.results.missing.length) { %><p>Not reported: <%= it.results.missing.join(', ') %>.</p><% } %>
<p><a href="/portal/orders/<%= it.o.id %>/results.pdf">Download the lab's report (PDF)</a></p>
<% } else { %><p>Your results will appear here as soon as the lab reports them.</p><% } %>
</section>
<section aria-labelledby="timeline-h">
<h2 id="timeline-h">What has happened so far</h2>
<ol class="timeline">
<% it.o.timeline.forEach(function (event) { %><li><time datetime="<%= event.at %>"><%= event.when %></time><br><%= event.words %></li>
<% }) %></ol>
</section>`;

export const ORDERS_PAGE = `<% layout('@layout') %>
<section aria-labelledby="orders-h">
<h1 id="orders-h">Your lab orders</h1>
<% if (it.orders.length === 0) { %><p>You have no orders.</p><% } %>
<ul class="plain"><% it.orders.forEach(function (order) { %><li><a href="/portal/orders/<%= order.id %>"><%= order.testName %></a> · <%= order.statusWords %></li><% }) %></ul>
</section>`;

export const SLOTS_PAGE = `<% layout('@layout') %>
<section aria-labelledby="slots-h">
<h1 id="slots-h"><%= it.action === 'book' ? 'Choose a time' : 'Choose a new time' %></h1>
<p class="muted">Times are shown in <%= it.timezone %>.</p>
<% if (it.days.length === 0) { %><p>No free times in these two weeks.</p><% } else { %>
<form method="post" action="/portal/orders/<%= it.orderId %>/<%= it.action %>">
<input type="hidden" name="csrf" value="<%= it.csrf %>">
<% it.days.forEach(function (day) { %><fieldset class="slots">
<legend><%= day.label %></legend>
<% if (day.location) { %><p class="muted"><%= day.location %></p><% } %>
<% day.slots.forEach(function (slot) { %><label><input type="radio" name="booking_key" value="<%= slot.booking_key %>" required> <%= slot.time %></label>
<% }) %></fieldset>
<% }) %>
<button><%= it.action === 'book' ? 'Book this time' : 'Move my appointment' %></button>
</form>
<% } %>
<% if (it.nextStartDate) { %><p><a href="/portal/orders/<%= it.orderId %>/slots?action=<%= it.action %>&amp;start_date=<%= it.nextStartDate %>">Later dates</a></p><% } %>
<p><a href="/portal/orders/<%= it.orderId %>">Back to your order</a></p>
</section>`;

export const VERIFY_PAGE = `<% layout('@layout') %>
<section aria-labelledby="verify-h">
<h1 id="verify-h">Let's check it's you</h1>
<% if (it.error) { %><p class="notice error" role="alert"><%= it.error %></p><% } %>
<% if (it.sentTo) { %>
<p>We sent a 6-digit code to <strong><%= it.sentTo %></strong>. It works for <%= it.codeMinutes %> minutes.</p>
<form method="post" action="/p/<%= it.code %>/verify">
<label for="otp">Your 6-digit code</label>
<input class="code" id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
<p><button>Continue</button></p>
</form>
<p><a href="/p/<%= it.code %>">Send a new code</a></p>
<% } else if (it.channels.length) { %>
<p>This link opens your health information, so on a new device we first send you a one-time code.</p>
<% it.channels.forEach(function (channel) { %><form method="post" action="/p/<%= it.code %>/send">
<input type="hidden" name="channel" value="<%= channel.channel %>">
<button><%= channel.channel === 'email' ? 'E-mail a code to ' : 'Text a code to ' %><%= channel.masked %></button>
</form>
<% }) %>
<% } else { %><p>We cannot send you a code right now. Please contact us (below) for help.</p><% } %>
</section>`;

export const PROBLEM_PAGE = `<% layout('@layout') %>
<section aria-labelledby="problem-h">
<h1 id="problem-h"><%= it.heading %></h1>
<p><%= it.message %></p>
</section>`;

export const OUTBOX_PAGE = `<% layout('@layout') %>
<section aria-labelledby="outbox-h">
<h1 id="outbox-h">Development outbox</h1>
<p class="muted">Messages this process sent (development only, newest first).</p>
<table>
<thead><tr><th scope="col">Sent</th><th scope="col">To</th><th scope="col">Message</th></tr></thead>
<tbody><% it.messages.forEach(function (m) { %><tr><td><%= m.sent_at %></td><td><%= m.channel %>: <%= m.to %></td><td><% if (m.subject) { %><strong><%= m.subject %></strong><br><% } %><%= m.text %></td></tr>
<% }) %></tbody>
</table>
</section>`;
