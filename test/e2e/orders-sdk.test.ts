import { VitalClient, VitalError } from '@tryvital/vital-node';
import { createUser, LIPID_PANEL_KIT, ORDER_TEST_ENV, orderReaches, VITAMIN_D_KIT } from '../helpers/orders';
import { pdfText } from '../helpers/pdf';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * Orders through the official Junction SDK (@tryvital/vital-node): every call parses labflow's
 * answer with the SDK's own schemas (ClientFacingOrder, PostOrderResponse, GetOrdersResponse), so
 * each await is a shape check. The SDK authenticates with `x-vital-api-key`, which labflow takes.
 */
describe('orders through @tryvital/vital-node', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let client: VitalClient;
  let userId: string;

  const patientDetails = {
    firstName: 'Thaddeus',
    lastName: 'Villanueva',
    dob: '1979-11-02',
    gender: 'male' as const,
    phoneNumber: '+14155550199',
    email: 'thaddeus@example.com',
  };
  const patientAddress = {
    receiverName: 'Thaddeus Villanueva',
    firstLine: '500 Howard St',
    city: 'San Francisco',
    state: 'CA',
    zip: '94105',
    country: 'US',
    phoneNumber: '+14155550199',
  };

  beforeAll(async () => {
    stack = await startStack({ env: ORDER_TEST_ENV });
    tenant = await createTenant(stack.db);
    userId = await createUser(stack, tenant);
    client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, maxRetries: 0, timeoutInSeconds: 20 });
  });
  afterAll(() => stack.close());

  it('creates, reads, lists, simulates to completion', async () => {
    const created = await client.labTests.createOrder({ userId, labTestId: LIPID_PANEL_KIT, patientDetails, patientAddress });
    expect(created.status).toBe('success');
    expect(created.order.status).toBe('received');
    expect(created.order.events.map((event) => event.status)).toEqual(['received.testkit.ordered']);
    expect(created.order.details.type).toBe('testkit');
    expect(created.order.createdAt).toBeInstanceOf(Date);

    const order = await client.labTests.getOrder(created.order.id);
    expect(order.id).toBe(created.order.id);
    expect(order.labTest.id).toBe(LIPID_PANEL_KIT);
    expect(order.patientDetails?.firstName).toBe('Thaddeus');

    const listed = await client.labTests.getOrders({ userId, status: ['ordered'], orderType: 'testkit', page: 1, size: 10 });
    expect(listed.total).toBe(1);
    expect(listed.orders.map((item) => item.id)).toEqual([created.order.id]);
    expect((await client.labTests.getOrders({ orderIds: [created.order.id], startDate: new Date(Date.now() - 3_600_000) })).orders).toHaveLength(1);
    // The SDK's other filters: an order with no activate_by is current; the recipient is the address's.
    expect((await client.labTests.getOrders({ userId, orderActivationTypes: ['current'], shippingRecipientName: 'villanueva' })).total).toBe(1);
    expect((await client.labTests.getOrders({ userId, orderActivationTypes: 'scheduled' })).total).toBe(0);
    expect((await client.labTests.getOrders({ userId, shippingRecipientName: 'Okonkwo' })).total).toBe(0);
    expect((await client.labTests.getOrders({ userId, searchInput: 'thaddeus' })).orders.map((item) => item.id)).toEqual([created.order.id]);

    await client.labTests.simulateOrderProcess(created.order.id, { body: { interpretation: 'abnormal' } });
    await orderReaches(stack, tenant, created.order.id, 'completed');
    const done = await client.labTests.getOrder(created.order.id);
    expect(done.status).toBe('completed');
    expect(done.interpretation).toBe('abnormal');
    expect(done.events.at(-1)?.status).toBe('completed.testkit.completed');
    expect((await client.labTests.getOrders({ interpretation: 'abnormal', userId })).total).toBe(1);

    const report = await client.labTests.getResultRaw(created.order.id);
    expect(report.metadata).toMatchObject({ patient: 'Thaddeus Villanueva', dob: '1979-11-02', status: 'final', interpretation: 'abnormal' });
    // The lab's CLIA number (a sandbox one, 99D…), and who performed each result on which sample.
    const raw = await call(stack.apiUrl, 'GET', `/v3/order/${created.order.id}/result`, { key: tenant.apiKey });
    expect(raw.body.metadata['clia_#']).toBe('99D0000005');
    // The sample: its id, when it was collected, received and reported, and the lab that performed its tests.
    expect(raw.body.sample_information).toEqual({
      [created.order.sampleId!]: {
        sample_id: created.order.sampleId,
        date_collected: raw.body.metadata.date_collected,
        date_received: raw.body.metadata.date_received,
        date_reported: raw.body.metadata.date_reported,
        performing_laboratories: { us_biotek: { name: 'US BioTek Laboratories', address: expect.objectContaining({ country: 'US' }) } },
      },
    });
    expect(report.sampleInformation?.[created.order.sampleId!]?.performingLaboratories?.us_biotek?.name).toBe('US BioTek Laboratories');
    expect(
      raw.body.results.every(
        (result: { performing_laboratory?: string; source_sample_id?: string }) =>
          result.performing_laboratory === 'US BioTek Laboratories' && result.source_sample_id === created.order.sampleId,
      ),
    ).toBe(true);
    // The SDK types LabResultsRaw.results loosely (a union with a record form).
    const results = report.results as Array<{ interpretation?: string; type: string }>;
    expect(results.length).toBeGreaterThan(0);
    expect(results.some((result) => result.interpretation === 'abnormal')).toBe(true);
    expect(new Set(results.map((result) => result.type)).size).toBeGreaterThan(1);
    const metadata = await client.labTests.getResultMetadata(created.order.id);
    expect(metadata.specimenNumber).toBe(created.order.sampleId);

    const pdf = await fetch(done.requisitionFormUrl!.replace(/^https?:\/\/[^/]+/, stack.apiUrl), { headers: { 'x-vital-api-key': tenant.apiKey } });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    const viaSdk = await client.labTests.getOrderRequistionPdf(created.order.id);
    expect(
      Buffer.from(await viaSdk.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    // The order's collection instructions: the kit's steps, its fasting rule, the order and sample ids.
    const instructions = pdfText(Buffer.from(await (await client.labTests.getOrderCollectionInstructionPdf(created.order.id)).arrayBuffer()));
    expect(instructions).toContain('Collecting your sample at home (finger prick)');
    expect(instructions).toContain('Do not eat or drink anything but water for 8 to 12 hours');
    expect(instructions).toContain(`Order ID: ${created.order.id} Sample ID: ${created.order.sampleId}`);
    // The lab test's own, through the SDK too: every test has them now.
    const walkIn = await call(stack.apiUrl, 'GET', '/v3/lab_tests/1ab7e570-0000-4000-8000-000000000003', { key: tenant.apiKey });
    expect(walkIn.body).toMatchObject({ method: 'walk_in_test', has_collection_instructions: true });
    const ofTest = pdfText(Buffer.from(await (await client.labTests.getLabTestCollectionInstructionPdf(LIPID_PANEL_KIT)).arrayBuffer()));
    expect(ofTest).toContain('Test: Lipid Panel (test kit)');
    expect(ofTest).not.toContain('Order ID');
    // No ABN: the order needs none, and says so.
    await expect(client.labTests.getOrderAbnPdf(created.order.id)).rejects.toMatchObject({ statusCode: 404 });
    const abn = await call(stack.apiUrl, 'GET', `/v3/order/${created.order.id}/abn_pdf`, { key: tenant.apiKey });
    expect(abn.body).toEqual({ detail: 'This order has no ABN: has_abn is false (its lab asks for none).' });
    const other = await createTenant(stack.db);
    for (const path of [`/v3/order/${created.order.id}/collection_instruction_pdf`, `/v3/order/${created.order.id}/abn_pdf`]) {
      expect((await call(stack.apiUrl, 'GET', path, { key: other.apiKey })).status).toBe(404);
    }
  });

  it('simulates results without an interpretation, in the result types asked for', async () => {
    const created = await client.labTests.createOrder({ userId, labTestId: LIPID_PANEL_KIT, patientDetails, patientAddress });
    await client.labTests.simulateOrderProcess(created.order.id, { body: { interpretation: 'unknown', resultTypes: ['coded_value', 'numeric'] } });
    await orderReaches(stack, tenant, created.order.id, 'completed');
    const done = await client.labTests.getOrder(created.order.id);
    expect(done.interpretation).toBe('unknown');
    const listed = await client.labTests.getOrders({ interpretation: 'unknown', userId });
    expect(listed.orders.map((item) => item.id)).toContain(created.order.id);
    expect((await client.labTests.getOrders({ interpretation: 'normal', userId })).orders.map((item) => item.id)).not.toContain(created.order.id);

    const report = await client.labTests.getResultRaw(created.order.id);
    expect(report.metadata.interpretation).toBe('unknown');
    const results = report.results as Array<{ interpretation?: string; type: string; result: string }>;
    expect(results.length).toBeGreaterThan(1);
    expect(results.map((result) => result.interpretation)).toEqual(results.map(() => 'unknown'));
    expect(results.map((result) => result.type)).toEqual(results.map((_, index) => (index % 2 === 0 ? 'coded_value' : 'numeric')));
    expect(results[0].result).toBe('Negative');

    // A result type the SDK does not know is refused with the field named (the SDK would not send it).
    const refused = await call(stack.apiUrl, 'POST', `/v3/order/${created.order.id}/test`, { key: tenant.apiKey, body: { result_types: ['spectrum'] } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'result_types', 0] });
  });

  it('cancels, and reports a refused cancel as an error with {detail}', async () => {
    const created = await client.labTests.createOrder({ userId, labTestId: LIPID_PANEL_KIT, patientDetails, patientAddress });
    const cancelled = await client.labTests.cancelOrder(created.order.id);
    expect(cancelled.order.status).toBe('cancelled');
    expect(cancelled.order.events.at(-1)?.status).toBe('cancelled.testkit.cancelled');
    const noResults = await client.labTests.getResultRaw(created.order.id).catch((error: unknown) => error);
    expect((noResults as VitalError).statusCode).toBe(404);
    const refused = await client.labTests.cancelOrder(created.order.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(VitalError);
    expect((refused as VitalError).statusCode).toBe(400);
    expect((refused as VitalError).body).toEqual({ detail: expect.stringMatching(/cannot be cancelled/) });
  });

  it('orders an unregistered kit and registers it with its sample id', async () => {
    const created = await client.testkit.createOrder({
      userId,
      labTestId: VITAMIN_D_KIT,
      shippingDetails: { ...patientAddress, receiverName: 'Thaddeus Villanueva', phoneNumber: '+14155550199' },
    });
    expect(created.order.events.map((event) => event.status)).toEqual(['received.testkit.ordered', 'received.testkit.awaiting_registration']);
    await client.labTests.simulateOrderProcess(created.order.id, { finalStatus: 'collecting_sample.testkit.with_customer' });
    await orderReaches(stack, tenant, created.order.id, 'with_customer');
    const registered = await client.testkit.register({ sampleId: created.order.sampleId!, patientDetails, patientAddress });
    expect(registered.order.events.at(-1)?.status).toBe('received.testkit.registered');
    expect(registered.order.patientDetails?.lastName).toBe('Villanueva');
  });

  it("resends each matched order's latest event (POST /v3/order/resend_events)", async () => {
    const resendTenant = await createTenant(stack.db);
    const sdk = new VitalClient({ baseUrl: stack.apiUrl, apiKey: resendTenant.apiKey, maxRetries: 0 });
    const userId = await createUser(stack, resendTenant);
    const first = await sdk.labTests.createOrder({ userId, labTestId: LIPID_PANEL_KIT, patientDetails, patientAddress });
    const second = await sdk.labTests.createOrder({ userId, labTestId: LIPID_PANEL_KIT, patientDetails, patientAddress });

    expect(await sdk.order.resendEvents({ orderIds: [first.order.id] })).toEqual({ orderIds: [first.order.id] });
    const all = await sdk.order.resendEvents();
    expect([...all.orderIds].sort()).toEqual([first.order.id, second.order.id].sort());
    expect(await sdk.order.resendEvents({ startAt: new Date(Date.now() + 3_600_000) })).toEqual({ orderIds: [] });
    // another team's orders are never matched
    expect(await client.order.resendEvents({ orderIds: [first.order.id] })).toEqual({ orderIds: [] });
  });

  it('answers validation errors in the shape the SDK parses (422)', async () => {
    const failure = await client.labTests
      .createOrder({ userId, labTestId: LIPID_PANEL_KIT, patientDetails: { ...patientDetails, dob: 'yesterday' }, patientAddress })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(VitalError);
    expect((failure as VitalError).statusCode).toBe(422);
  });
});
