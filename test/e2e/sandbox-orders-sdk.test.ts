import { type Vital, VitalClient } from '@tryvital/vital-node';
import {
  createSdkOrderInPhoenix,
  LIPID_PANEL_KIT,
  ON_SITE_CMP,
  ORDER_TEST_ENV,
  orderReaches,
  PHOENIX,
  someStartDate,
  THYROID_AT_HOME,
  WALK_IN_CMP,
} from '../helpers/orders';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';
import { fetchBytes, pdfText } from '../helpers/pdf';
import { waitFor, WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Sandbox orders tell the same story as production (issue 16): with a sandbox key, labflow's own
 * steps (requisition, shipment, waiting for an appointment, recording a booking, a reschedule or
 * a cancellation) happen at once and send their webhooks; only outside facts (the courier, the
 * lab, the phlebotomist's draw) wait for `POST /v3/order/{id}/test`.
 */
describe('sandbox orders through @tryvital/vital-node run labflow’s own steps', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let client: VitalClient;
  let receiver: WebhookReceiver;

  const lows = async (orderId: string) => (await client.labTests.getOrder(orderId)).events.map((event) => event.status.split('.')[2]);
  const slotsOf = (availability: Vital.AppointmentAvailabilitySlots) => availability.slots.flatMap((day) => day.slots);

  /** The verified labtest.order.updated webhooks of an order, by low-level status, as they arrived. */
  const orderWebhooks = (orderId: string) =>
    receiver
      .accepted('/sandbox')
      .filter((request) => request.verified && request.json?.event_type === 'labtest.order.updated' && request.json.data.id === orderId)
      .map((request) => String(request.json.data.events.at(-1).status).split('.')[2]);
  const webhookArrives = (orderId: string, low: string) =>
    waitFor(() => orderWebhooks(orderId).includes(low), { timeoutMs: 30_000, describe: () => orderWebhooks(orderId) });

  const createOrder = (labTestId: string) => createSdkOrderInPhoenix(client, stack, tenant, labTestId);

  beforeAll(async () => {
    stack = await startStack({ env: { ...ORDER_TEST_ENV, EVENTS_RELAY_POLL_INTERVAL: '200ms' }, events: true, management: true });
    tenant = await createTenant(stack.db, { environment: 'sandbox' });
    client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, maxRetries: 0, timeoutInSeconds: 20 });
    receiver = await WebhookReceiver.start();
    const management = { headers: { 'X-Management-Key': tenant.managementKey } };
    const endpoint = await call(stack.managementUrl, 'POST', `/v1/org/${tenant.orgId}/team/${tenant.teamId}/sandbox/webhook`, {
      ...management,
      body: { url: receiver.url('/sandbox') },
    });
    expect(endpoint.status).toBe(200);
    const secret = await call(
      stack.managementUrl,
      'GET',
      `/v1/org/${tenant.orgId}/team/${tenant.teamId}/sandbox/webhook/${endpoint.body.id}/secret`,
      management,
    );
    receiver.secret('/sandbox', secret.body.key);
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  it('at-home: requisition and appointment_pending without /test; book, reschedule and cancel move the order at once; /test completes it', async () => {
    const orderId = await createOrder(THYROID_AT_HOME);
    await orderReaches(stack, tenant, orderId, 'appointment_pending');
    expect(await lows(orderId)).toEqual(['ordered', 'requisition_created', 'appointment_pending']);
    await webhookArrives(orderId, 'appointment_pending');

    const slots = slotsOf(await client.labTests.getPhlebotomyAppointmentAvailability({ startDate: someStartDate(), body: { ...PHOENIX, zipCode: '85004' } }));
    const booked = await client.labTests.bookPhlebotomyAppointment(orderId, { bookingKey: slots[0].bookingKey! });
    expect(booked).toMatchObject({ orderId, status: 'confirmed', eventStatus: 'scheduled' });
    // The booking's answer comes after the workflow recorded it: the order already says so.
    expect((await lows(orderId)).at(-1)).toBe('appointment_scheduled');
    await webhookArrives(orderId, 'appointment_scheduled');

    const moved = await client.labTests.reschedulePhlebotomyAppointment(orderId, { bookingKey: slots[2].bookingKey! });
    expect(moved).toMatchObject({ id: booked.id, status: 'confirmed' });
    expect(await lows(orderId)).toEqual(['ordered', 'requisition_created', 'appointment_pending', 'appointment_scheduled', 'appointment_scheduled']);

    const [reason] = await client.labTests.getPhlebotomyAppointmentCancellationReason();
    await client.labTests.cancelPhlebotomyAppointment(orderId, { cancellationReasonId: reason.id });
    expect((await lows(orderId)).at(-1)).toBe('appointment_cancelled');
    await webhookArrives(orderId, 'appointment_cancelled');

    // A new booking after the cancellation, then the outside facts from the simulation.
    const again = slotsOf(await client.labTests.getPhlebotomyAppointmentAvailability({ startDate: someStartDate(), body: { ...PHOENIX, zipCode: '85004' } }));
    await client.labTests.bookPhlebotomyAppointment(orderId, { bookingKey: again[1].bookingKey! });
    expect((await lows(orderId)).at(-1)).toBe('appointment_scheduled');
    expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test`, { key: tenant.apiKey })).status).toBe(200);
    await orderReaches(stack, tenant, orderId, 'completed');
    expect((await lows(orderId)).slice(-5)).toEqual(['appointment_cancelled', 'appointment_scheduled', 'draw_completed', 'partial_results', 'completed']);
    // One verified labtest.order.updated per event after the first (delivery order is not promised;
    // partial_results webhooks are a team opt-in, off here).
    const events = (await lows(orderId))
      .slice(1)
      .filter((low) => low !== 'partial_results')
      .sort();
    await waitFor(() => orderWebhooks(orderId).length >= events.length, { timeoutMs: 30_000, describe: () => orderWebhooks(orderId) });
    expect(orderWebhooks(orderId).sort()).toEqual(events);
  });

  it('walk-in: a PSC booking schedules the order without /test; /test completes it', async () => {
    const orderId = await createOrder(WALK_IN_CMP);
    await orderReaches(stack, tenant, orderId, 'appointment_pending');
    const slots = slotsOf(await client.labTests.getPscAppointmentAvailability({ lab: 'quest', zipCode: '10001', radius: '25', startDate: someStartDate() }));
    const booked = await client.labTests.bookPscAppointment(orderId, { bookingKey: slots[0].bookingKey! });
    expect(booked).toMatchObject({ orderId, type: 'patient_service_center', status: 'confirmed' });
    expect(await lows(orderId)).toEqual(['ordered', 'requisition_created', 'appointment_pending', 'appointment_scheduled']);
    await webhookArrives(orderId, 'appointment_scheduled');

    expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test`, { key: tenant.apiKey })).status).toBe(200);
    await orderReaches(stack, tenant, orderId, 'completed');
    expect(await lows(orderId)).toEqual(['ordered', 'requisition_created', 'appointment_pending', 'appointment_scheduled', 'partial_results', 'completed']);
    expect((await client.labTests.getPscAppointment(orderId)).status).toBe('completed');
  });

  it('on-site collection: the requisition without /test; the SDK reports the draw; /test completes it', async () => {
    const userId = (await client.user.create({ clientUserId: `on-site-${Date.now()}-${Math.random()}` })).userId;
    const created = await client.labTests.createOrder({
      userId,
      labTestId: ON_SITE_CMP,
      collectionMethod: 'on_site_collection',
      patientDetails: {
        firstName: 'Imogen',
        lastName: 'Achterberg',
        dob: '1983-07-21',
        gender: 'female',
        phoneNumber: '+16025550142',
        email: 'imogen@example.com',
      },
      patientAddress: { ...PHOENIX, receiverName: 'Imogen Achterberg', zip: '85004', country: 'US', phoneNumber: '+16025550142' },
    });
    expect(created.order.details).toMatchObject({ type: 'on_site_collection', data: { id: created.order.id } });
    const orderId = created.order.id;
    await orderReaches(stack, tenant, orderId, 'requisition_created');
    await webhookArrives(orderId, 'requisition_created');

    // No report yet: 404, for the JSON and the PDF alike.
    await expect(client.labTests.getResultRaw(orderId)).rejects.toMatchObject({ statusCode: 404 });
    await expect(client.labTests.getResultPdf(orderId)).rejects.toMatchObject({ statusCode: 404 });

    // Labels for the tubes, before the draw: two, with the sample id and the collection time.
    const labels = pdfText(
      Buffer.from(await (await client.labTests.getLabelsPdf(orderId, { numberOfLabels: 2, collectionDate: new Date('2026-11-21T09:30:00Z') })).arrayBuffer()),
    );
    const sampleId = created.order.sampleId!;
    expect(labels.split(`ACHTERBERG, Imogen DOB 1983-07-21 F ${sampleId} Coll 2026-11-21 09:30 UTC Quest Diagnostics`).length - 1).toBe(2);
    const noDate = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/labels/pdf`, { key: tenant.apiKey });
    expect(noDate.status).toBe(422);
    expect(noDate.body.detail[0].loc).toEqual(['query', 'collection_date']);
    const tooMany = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/labels/pdf?collection_date=2026-11-21&number_of_labels=51`, { key: tenant.apiKey });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0].loc).toEqual(['query', 'number_of_labels']);

    const drawn = await client.labTests.updateOnSiteCollectionOrderDrawCompleted(orderId);
    expect(drawn.order.status).toBe('sample_with_lab');
    expect(drawn.order.events.at(-1)?.status).toBe('sample_with_lab.on_site_collection.draw_completed');
    await webhookArrives(orderId, 'draw_completed');

    expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test`, { key: tenant.apiKey })).status).toBe(200);
    await orderReaches(stack, tenant, orderId, 'completed');
    expect(await lows(orderId)).toEqual(['ordered', 'requisition_created', 'draw_completed', 'partial_results', 'completed']);
    const report = await client.labTests.getResultRaw(orderId);
    const results = report.results as Vital.BiomarkerResult[];
    expect(results.length).toBeGreaterThan(0);

    // The same report as a PDF: its patient, specimen and every result's name and value.
    const pdf = Buffer.from(await (await client.labTests.getResultPdf(orderId)).arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(pdf);
    expect(text).toContain('LABORATORY REPORT FINAL REPORT');
    expect(text).toContain('Name: Imogen Achterberg');
    expect(text).toContain(`Order ID: ${orderId}`);
    expect(text).toContain(`Specimen number: ${report.metadata.specimenNumber}`);
    for (const result of results) expect(text).toContain(`${result.name} ${result.result}`.replace(/\s+/g, ' '));
    const other = await createTenant(stack.db, { environment: 'sandbox' });
    const foreign = await fetchBytes(`${stack.apiUrl}/v3/order/${orderId}/result/pdf`, { 'x-service-api-key': other.apiKey });
    expect(foreign.status).toBe(404);
  });

  it('test kit: the requisition is created and the kit ships without /test; the sandbox courier and lab report the rest', async () => {
    const orderId = await createOrder(LIPID_PANEL_KIT);
    await orderReaches(stack, tenant, orderId, 'transit_customer');
    await webhookArrives(orderId, 'transit_customer');
    expect(await lows(orderId)).toEqual(['ordered', 'requisition_created', 'transit_customer']);

    expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test`, { key: tenant.apiKey })).status).toBe(200);
    await orderReaches(stack, tenant, orderId, 'completed');
    expect(await lows(orderId)).toEqual([
      'ordered',
      'requisition_created',
      'transit_customer',
      'out_for_delivery',
      'with_customer',
      'transit_lab',
      'delivered_to_lab',
      'completed',
    ]);
  });
});
