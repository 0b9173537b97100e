import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import * as pdfModule from '../../src/requisitions/requisition-pdf';
import {
  createUser,
  eventually,
  ORDER_TEST_ENV,
  orderBody,
  patientAddress,
  patientDetails,
  someStartDate,
  testkitBody,
  THYROID_AT_HOME,
  WALK_IN_CMP,
} from '../helpers/orders';
import { fetchBytes, pdfText } from '../helpers/pdf';
import { call, createTenant, type TestStack, startStack } from '../helpers/stack';

/**
 * Records the responses of a fixed set of requests (every order, requisition and appointment
 * route family, success and error) so that a refactor can prove it changed none of them:
 *
 *   CAPTURE_RESPONSES=/tmp/before.json npx jest --selectProjects capture
 *   (refactor)
 *   CAPTURE_RESPONSES=/tmp/after.json npx jest --selectProjects capture
 *   diff /tmp/before.json /tmp/after.json
 *
 * A tool, not a test: the `capture` Jest project exists only while CAPTURE_RESPONSES names the
 * file to write (jest.config.js), so `npm test` never runs it. Production-environment tenants (their
 * orders only move when a partner calls back, and this stack's partners stay silent). What differs
 * per run is normalised: each new uuid and sample id becomes a placeholder numbered in order of
 * appearance, timestamps become <ts>, signed link and booking key parts become placeholders. The
 * requisition PDF is recorded as its renderer input (normalised), its text, and whether the bytes
 * served are exactly the bytes the (pure, deterministic) renderer produced for that input.
 */
const output = process.env.CAPTURE_RESPONSES ?? '';

const PHYSICIAN = { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' };
const LABCORP_CBC_WALK_IN = '1ab7e570-0000-4000-8000-000000000004';
const PHOENIX_ADDRESS = { ...patientAddress(), first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip: '85004' };

class Normaliser {
  private readonly tokens = new Map<string, string>();

  /** Known values (seeded catalog ids) keep their text; everything else per run is mapped. */
  constructor(private readonly keep: Set<string>) {}

  /** The placeholder of a per-run value: `<kind-N>`, N in order of first appearance per kind. */
  private token(kind: string, value: string): string {
    const key = `${kind}:${value}`;
    if (!this.tokens.has(key)) this.tokens.set(key, `<${kind}-${[...this.tokens.keys()].filter((known) => known.startsWith(`${kind}:`)).length + 1}>`);
    return this.tokens.get(key)!;
  }

  text(value: string): string {
    return value
      .replace(/expires=\d+&signature=[A-Za-z0-9._-]+/g, 'expires=<expires>&signature=<signature>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, (id) => (this.keep.has(id) ? id : this.token('uuid', id)))
      .replace(/\bLF[0-9A-Z]{10}\b/g, (sample) => this.token('sample', sample))
      .replace(/\bLF[OI]\d{10,}\b/g, (tracking) => this.token('tracking', tracking))
      .replace(/\b[A-Z]+-[0-9a-f]{16}\b/g, (providerId) => this.token('provider-id', providerId))
      .replace(/IMP-[0-9a-f]{8}/g, 'IMP-<import>')
      .replace(/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?( ?UTC|Z|[+-]\d{2}:?\d{2})?/g, '<ts>');
  }

  /** `isEvent`: the value is an order event (its numeric id is a per-run sequence number). */
  value(value: unknown, key?: string, isEvent = false): unknown {
    if (typeof value === 'string') return key === 'booking_key' ? '<booking-key>' : this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item, undefined, key === 'events'));
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([name, item]) => [
          name,
          isEvent && name === 'id' && typeof item === 'number' ? this.token('event', String(item)) : this.value(item, name, name === 'last_event'),
        ]),
      );
    }
    return value;
  }
}

describe('response capture (CAPTURE_RESPONSES=<file>)', () => {
  let stack: TestStack;

  beforeAll(async () => {
    if (!output) throw new Error('Set CAPTURE_RESPONSES to the file to write (see the comment above).');
    stack = await startStack({ labReportWorker: true, env: { ...ORDER_TEST_ENV, APPOINTMENT_PROVIDER_STEP_DELAY: '300ms' } });
  });
  afterAll(() => stack?.close());

  it('records every route family, success and error', async () => {
    const normaliser = new Normaliser(new Set([LABCORP_CBC_WALK_IN, WALK_IN_CMP, THYROID_AT_HOME, orderBody('x').lab_test_id, testkitBody('x').lab_test_id]));
    const entries: Array<{ name: string; result: unknown }> = [];
    const tenant = await createTenant(stack.db, { environment: 'production' });
    const other = await createTenant(stack.db, { environment: 'production' });
    const userId = await createUser(stack, tenant);
    const pdfRenders = jest.spyOn(pdfModule, 'renderRequisitionPdf');

    const record = async (
      name: string,
      method: string,
      path: string,
      options: { body?: unknown; headers?: Record<string, string>; key?: string | null; rawBody?: string } = {},
    ) => {
      const key = options.key === null ? undefined : (options.key ?? tenant.apiKey);
      const response = await call(stack.apiUrl, method, path, { key, body: options.body, headers: options.headers, rawBody: options.rawBody });
      entries.push({ name, result: normaliser.value({ status: response.status, contentType: response.headers.get('content-type'), body: response.body }) });
      return response;
    };
    const recordPdf = async (name: string, url: string, headers: Record<string, string>) => {
      const before = pdfRenders.mock.calls.length;
      const response = await fetchBytes(url, headers);
      const rendered = pdfRenders.mock.calls.length > before ? pdfRenders.mock.calls[pdfRenders.mock.calls.length - 1] : null;
      const renderedBytes = rendered ? await (pdfRenders.mock.results[pdfRenders.mock.results.length - 1].value as Promise<Buffer>) : null;
      const isPdf = response.contentType?.includes('pdf') ?? false;
      entries.push({
        name,
        result: normaliser.value({
          status: response.status,
          contentType: response.contentType,
          rendererInput: rendered?.[0] ?? null,
          bytesAreRendererOutput: renderedBytes ? renderedBytes.equals(response.body) : null,
          text: isPdf ? pdfText(response.body) : response.body.toString('utf8'),
        }),
      });
    };
    /** Waits until the order's last event has not changed for 1.5 s (production orders stop at a partner step). */
    const settle = async (orderId: string) => {
      let last = '';
      let since = Date.now();
      await eventually(async () => {
        const response = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}`, { key: tenant.apiKey });
        const status = `${response.body?.last_event?.status}:${response.body?.events?.length}`;
        if (status !== last) {
          last = status;
          since = Date.now();
          return undefined;
        }
        return Date.now() - since > 1500 ? true : undefined;
      }, `order ${orderId} to settle`);
    };

    // --- order creation, idempotency --------------------------------------------------------
    const created = await record('create kit order', 'POST', '/v3/order', { body: orderBody(userId, { clinical_notes: 'Fasting.', icd_codes: ['E78.5'] }) });
    const kitId: string = created.body.order.id;
    const keyed = orderBody(userId, { activate_by: '2030-01-01' });
    const idempotencyKey = `capture-${randomUUID()}`;
    const first = await record('create with idempotency key', 'POST', '/v3/order', { body: keyed, headers: { 'x-idempotency-key': idempotencyKey } });
    await record('create replay same key', 'POST', '/v3/order', { body: keyed, headers: { 'x-idempotency-key': idempotencyKey } });
    await record('create same key other body', 'POST', '/v3/order', {
      body: { ...keyed, activate_by: '2030-02-02' },
      headers: { 'x-idempotency-key': idempotencyKey },
    });
    await record('create key too long', 'POST', '/v3/order', { body: keyed, headers: { 'x-idempotency-key': 'k'.repeat(256) } });
    const errorKey = `capture-${randomUUID()}`;
    const unknownUser = orderBody(randomUUID());
    await record('create unknown user, keyed (404 stored)', 'POST', '/v3/order', { body: unknownUser, headers: { 'x-idempotency-key': errorKey } });
    await record('create unknown user, keyed replay', 'POST', '/v3/order', { body: unknownUser, headers: { 'x-idempotency-key': errorKey } });
    const noCacheKey = `capture-${randomUUID()}`;
    await record('create unknown user, no-cache', 'POST', '/v3/order', {
      body: unknownUser,
      headers: { 'x-idempotency-key': noCacheKey, 'x-idempotency-error': 'no-cache' },
    });
    await record('create same no-cache key, valid body', 'POST', '/v3/order', {
      body: orderBody(userId),
      headers: { 'x-idempotency-key': noCacheKey, 'x-idempotency-error': 'no-cache' },
    });
    await record('create 422 (missing patient)', 'POST', '/v3/order', { body: { user_id: userId, lab_test_id: orderBody(userId).lab_test_id } });
    await record('create 422 keyed (not stored)', 'POST', '/v3/order', {
      body: { user_id: userId },
      headers: { 'x-idempotency-key': `capture-${randomUUID()}` },
    });
    await record('create unknown lab test', 'POST', '/v3/order', { body: orderBody(userId, { lab_test_id: randomUUID() }) });
    await record('create walk-in without physician', 'POST', '/v3/order', { body: orderBody(userId, { lab_test_id: WALK_IN_CMP }) });
    await record('create order set of two', 'POST', '/v3/order', {
      body: orderBody(userId, { lab_test_id: undefined, order_set: { lab_test_ids: [WALK_IN_CMP, THYROID_AT_HOME] } }),
    });
    await record('create malformed json', 'POST', '/v3/order', { rawBody: '{"user_id": ', headers: { 'content-type': 'application/json' } });
    await record('create without key', 'POST', '/v3/order', { body: orderBody(userId), key: null });
    const testkit = await record('create unregistered testkit', 'POST', '/v3/order/testkit', { body: testkitBody(userId) });
    await record('create import', 'POST', '/v3/order/import', {
      body: {
        user_id: userId,
        billing_type: 'client_bill',
        order_set: { lab_test_ids: [orderBody(userId).lab_test_id] },
        collection_method: 'testkit',
        patient_details: patientDetails(),
        patient_address: patientAddress(),
        sample_id: `IMP-${randomUUID().slice(0, 8)}`,
      },
    });

    // --- reads -------------------------------------------------------------------------------
    await settle(kitId);
    await settle(first.body.order.id);
    await settle(testkit.body.order.id);
    await record('get kit order', 'GET', `/v3/order/${kitId}`);
    await record('get unknown order', 'GET', `/v3/order/${randomUUID()}`);
    await record('get other team order', 'GET', `/v3/order/${kitId}`, { key: other.apiKey });
    await record('get malformed id', 'GET', '/v3/order/not-a-uuid');
    await record('list orders', 'GET', '/v3/orders?size=50');
    await record('list by patient name', 'GET', '/v3/orders?patient_name=okonk&order_key=patient_name&order_direction=asc');
    await record('list filtered', 'GET', `/v3/orders?status[]=requisition_created&order_type=testkit&user_id=${userId}&page=1&size=2`);
    await record('list bad size', 'GET', '/v3/orders?size=0');
    await record('results not available', 'GET', `/v3/order/${kitId}/result`);
    await record('result metadata not available', 'GET', `/v3/order/${kitId}/result/metadata`);
    await record('results unknown order', 'GET', `/v3/order/${randomUUID()}/result`);

    // --- requisition --------------------------------------------------------------------------
    await recordPdf('requisition pdf (team key)', `${stack.apiUrl}/v3/order/${kitId}/requisition/pdf`, { 'x-service-api-key': tenant.apiKey });
    await recordPdf('requisition pdf, not registered kit', `${stack.apiUrl}/v3/order/${testkit.body.order.id}/requisition/pdf`, {
      'x-service-api-key': tenant.apiKey,
    });
    await recordPdf('requisition pdf unknown order', `${stack.apiUrl}/v3/order/${randomUUID()}/requisition/pdf`, { 'x-service-api-key': tenant.apiKey });
    const link = (await call(stack.apiUrl, 'GET', `/v3/order/${kitId}`, { key: tenant.apiKey })).body.requisition_form_url as string | null;
    if (link) {
      const url = new URL(link);
      await recordPdf('requisition pdf (signed link)', `${stack.apiUrl}${url.pathname}${url.search}`, {});
      await recordPdf('requisition pdf (tampered link)', `${stack.apiUrl}${url.pathname}?expires=${url.searchParams.get('expires')}&signature=rq1.AAAA`, {});
    } else {
      entries.push({ name: 'requisition link', result: 'none' });
    }

    // --- commands -----------------------------------------------------------------------------
    await record('patch activate_by', 'PATCH', `/v3/order/${first.body.order.id}`, { body: { activate_by: '2031-06-30' } });
    await record('patch bad activate_by', 'PATCH', `/v3/order/${first.body.order.id}`, { body: { activate_by: 'soon' } });
    await record('patch unknown order', 'PATCH', `/v3/order/${randomUUID()}`, { body: { activate_by: '2031-06-30' } });
    await record('simulate in production', 'POST', `/v3/order/${kitId}/test`, { body: {} });
    await record('register kit unknown sample', 'POST', '/v3/order/testkit/register', {
      body: { sample_id: 'LF0000000000', patient_details: patientDetails(), patient_address: patientAddress() },
    });
    await record('register registered-at-ordering kit', 'POST', '/v3/order/testkit/register', {
      body: { sample_id: created.body.order.sample_id, patient_details: patientDetails(), patient_address: patientAddress() },
    });
    await record('register kit not shipped', 'POST', '/v3/order/testkit/register', {
      body: { sample_id: testkit.body.order.sample_id, patient_details: patientDetails(), patient_address: patientAddress() },
    });
    await record('resend events', 'POST', '/v3/order/resend_events', { body: { order_ids: [kitId] } });
    await record('cancel kit order', 'POST', `/v3/order/${kitId}/cancel`);
    await settle(kitId);
    await record('cancel again', 'POST', `/v3/order/${kitId}/cancel`);
    await record('cancel unknown', 'POST', `/v3/order/${randomUUID()}/cancel`);
    await record('get cancelled order', 'GET', `/v3/order/${kitId}`);
    await record('patch cancelled order', 'PATCH', `/v3/order/${kitId}`, { body: { activate_by: '2031-06-30' } });
    const recreated = await record('recreate cancelled order', 'POST', `/v3/order/${kitId}/recreate`, { body: { update_reason: 'INCORRECT_LAB' } });
    if (recreated.status === 200) await settle(recreated.body.order.id);
    await record('recreate again', 'POST', `/v3/order/${kitId}/recreate`, { body: { update_reason: 'INCORRECT_LAB' } });
    await record('recreate bad reason', 'POST', `/v3/order/${first.body.order.id}/recreate`, { body: { update_reason: 'NOPE' } });

    // --- appointments -------------------------------------------------------------------------
    const walkIn = await record('create walk-in order', 'POST', '/v3/order', {
      body: { user_id: userId, lab_test_id: WALK_IN_CMP, patient_details: patientDetails(), patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN },
    });
    const walkInId: string = walkIn.body.order.id;
    const labcorp = await call(stack.apiUrl, 'POST', '/v3/order', {
      key: tenant.apiKey,
      body: { user_id: userId, lab_test_id: LABCORP_CBC_WALK_IN, patient_details: patientDetails(), patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN },
    });
    const homeOrder = await call(stack.apiUrl, 'POST', '/v3/order', {
      key: tenant.apiKey,
      body: { user_id: userId, lab_test_id: THYROID_AT_HOME, patient_details: patientDetails(), patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN },
    });
    await settle(walkInId);
    if (labcorp.status === 200) await settle(labcorp.body.order.id);
    await settle(homeOrder.body.order.id);
    await record('psc cancellation reasons', 'GET', '/v3/order/psc/appointment/cancellation-reasons');
    await record('phlebotomy cancellation reasons', 'GET', '/v3/order/phlebotomy/appointment/cancellation-reasons');
    await record('psc availability 422', 'POST', '/v3/order/psc/appointment/availability?lab=quest&radius=25');
    const psc = await call(stack.apiUrl, 'POST', `/v3/order/psc/appointment/availability?lab=quest&zip_code=10001&radius=25&start_date=${someStartDate()}`, {
      key: tenant.apiKey,
    });
    const pscSlots: Array<{ booking_key: string }> = psc.body.slots.flatMap((day: { slots: Array<{ booking_key: string }> }) => day.slots);
    await record('psc get before booking', 'GET', `/v3/order/${walkInId}/psc/appointment`);
    await record('psc book bad key', 'POST', `/v3/order/${walkInId}/psc/appointment/book`, { body: { booking_key: 'nope' } });
    await record('psc book on labcorp walk-in', 'POST', `/v3/order/${labcorp.body.order?.id ?? randomUUID()}/psc/appointment/book`, {
      body: { booking_key: pscSlots[0].booking_key },
    });
    await record('psc book on kit order', 'POST', `/v3/order/${first.body.order.id}/psc/appointment/book`, { body: { booking_key: pscSlots[0].booking_key } });
    await record('psc book key too long', 'POST', `/v3/order/${walkInId}/psc/appointment/book`, {
      body: { booking_key: pscSlots[0].booking_key },
      headers: { 'x-idempotency-key': 'k'.repeat(256) },
    });
    const bookingKey = `capture-${randomUUID()}`;
    await record('psc book with idempotency key', 'POST', `/v3/order/${walkInId}/psc/appointment/book`, {
      body: { booking_key: pscSlots[0].booking_key, appointment_notes: 'Capture.' },
      headers: { 'x-idempotency-key': bookingKey },
    });
    await record('psc book replay', 'POST', `/v3/order/${walkInId}/psc/appointment/book`, {
      body: { booking_key: pscSlots[0].booking_key, appointment_notes: 'Capture.' },
      headers: { 'x-idempotency-key': bookingKey },
    });
    await record('psc book same key other body', 'POST', `/v3/order/${walkInId}/psc/appointment/book`, {
      body: { booking_key: pscSlots[1].booking_key },
      headers: { 'x-idempotency-key': bookingKey },
    });
    await record('psc book again without key', 'POST', `/v3/order/${walkInId}/psc/appointment/book`, { body: { booking_key: pscSlots[2].booking_key } });
    await settle(walkInId);
    await record('psc get', 'GET', `/v3/order/${walkInId}/psc/appointment`);
    await record('psc reschedule', 'PATCH', `/v3/order/${walkInId}/psc/appointment/reschedule`, {
      body: { booking_key: pscSlots[3].booking_key, appointment_notes: 'Moved.' },
    });
    await record('psc cancel bad reason', 'PATCH', `/v3/order/${walkInId}/psc/appointment/cancel`, { body: { cancellation_reason_id: 'nope' } });
    const reasons = (await call(stack.apiUrl, 'GET', '/v3/order/psc/appointment/cancellation-reasons', { key: tenant.apiKey })).body as Array<{ id: string }>;
    await record('psc cancel', 'PATCH', `/v3/order/${walkInId}/psc/appointment/cancel`, { body: { cancellation_reason_id: reasons[0].id } });
    await settle(walkInId);
    await record('psc cancel again', 'PATCH', `/v3/order/${walkInId}/psc/appointment/cancel`, { body: { cancellation_reason_id: reasons[0].id } });
    await record('phlebotomy route on walk-in', 'GET', `/v3/order/${walkInId}/phlebotomy/appointment`);
    await record('draw completed on walk-in', 'PATCH', `/v3/order/${walkInId}/draw_completed`);
    await record('get walk-in order', 'GET', `/v3/order/${walkInId}`);
    await record('cancel walk-in order', 'POST', `/v3/order/${walkInId}/cancel`);
    await settle(walkInId);
    await record('psc book on cancelled order', 'POST', `/v3/order/${walkInId}/psc/appointment/book`, { body: { booking_key: pscSlots[4].booking_key } });

    const home = homeOrder.body.order.id as string;
    const phlebotomy = await call(stack.apiUrl, 'POST', `/v3/order/phlebotomy/appointment/availability?start_date=${someStartDate()}`, {
      key: tenant.apiKey,
      body: { first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip_code: '85004' },
    });
    const homeSlots: Array<{ booking_key: string }> = phlebotomy.body.slots.flatMap((day: { slots: Array<{ booking_key: string }> }) => day.slots);
    await record('phlebotomy book psc key', 'POST', `/v3/order/${home}/phlebotomy/appointment/book`, { body: { booking_key: pscSlots[5].booking_key } });
    await record('phlebotomy book', 'POST', `/v3/order/${home}/phlebotomy/appointment/book`, {
      body: { booking_key: homeSlots[0].booking_key, appointment_notes: 'Gate 1' },
    });
    await settle(home);
    await record('phlebotomy get', 'GET', `/v3/order/${home}/phlebotomy/appointment`);
    await record('phlebotomy request wrong provider', 'POST', `/v3/order/${home}/phlebotomy/appointment/request`, {
      body: { provider: 'nobody', address: { first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip_code: '85004' } },
    });
    await record('draw completed', 'PATCH', `/v3/order/${home}/draw_completed`);
    await settle(home);
    await record('get at-home order', 'GET', `/v3/order/${home}`);
    await record('provider callback unsigned', 'POST', '/v3/webhooks/appointments/nobody', { body: { provider_id: 'x', status: 'confirmed' }, key: null });

    writeFileSync(output, `${JSON.stringify(entries, null, 1)}\n`);
  });
});
