import { VitalClient } from '@tryvital/vital-node';
import { call, type Tenant, type TestStack } from '../helpers/stack';
import { orderBody, orderPassed, orderReaches, patientAddress, patientDetails, startOrderStack, testkitBody } from '../helpers/orders';
import { fetchBytes, pdfText } from '../helpers/pdf';

/**
 * What an order carries to its lab beyond the order row, each kept encrypted and printed on the
 * requisition: `health_insurance` (Junction's HealthInsuranceCreateRequest, named by the order's
 * health_insurance_id), `aoe_answers` and the physician's `signature_image`. Labcorp's
 * fully-delegated sandbox account bills commercial insurance (and needs a physician).
 */
const LABCORP_KIT = '1ab7e570-0000-4000-8000-00000000000b';
const LABCORP_FULLY_DELEGATED = '1ab0acc0-0000-4000-8000-000000000102';
const PHYSICIAN = { first_name: 'Imani', last_name: 'Castellanos', npi: '1234567893' };
/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const INSURANCE = {
  front_image: { content: PNG, content_type: 'image/png' },
  payor_code: 'AETNA-60054',
  insurance_id: 'W987654321',
  responsible_relationship: 'Spouse',
  responsible_details: {
    first_name: 'Sam',
    last_name: 'Villanueva',
    address: { first_line: '1 Main St', city: 'Phoenix', state: 'AZ', zip: '85004', country: 'US' },
    phone_number: '+14155550111',
  },
  diagnosis_codes: ['R73.09'],
  subjective: 'Fatigue for three months.',
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let stack: TestStack;
let tenant: Tenant;
let userId: string;

beforeAll(async () => {
  ({ stack, tenant, userId } = await startOrderStack());
});
afterAll(() => stack.close());

/** An order of the Labcorp kit on the fully-delegated account, with a physician. */
const order = (overrides: Record<string, unknown>) =>
  call(stack.apiUrl, 'POST', '/v3/order', {
    key: tenant.apiKey,
    body: orderBody(userId, { lab_test_id: LABCORP_KIT, lab_account_id: LABCORP_FULLY_DELEGATED, physician: PHYSICIAN, ...overrides }),
  });

/** The order's requisition once simulated that far: the PDF and its text, whitespace folded. */
async function requisitionOf(orderId: string): Promise<{ pdf: Buffer; text: string }> {
  const simulated = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test?final_status=requisition_created`, { key: tenant.apiKey, body: {} });
  expect(simulated.status).toBe(200);
  await orderPassed(stack, tenant, orderId, 'requisition_created');
  const pdf = await fetchBytes(`${stack.apiUrl}/v3/order/${orderId}/requisition/pdf`, { 'x-service-api-key': tenant.apiKey });
  expect(pdf.status).toBe(200);
  return { pdf: pdf.body, text: pdfText(pdf.body).replace(/\s+/g, ' ') };
}

describe('an order billed to a health insurance', () => {
  const insuranceRows = async () =>
    stack.db.query<{ id: string; insurance_enc: string }[]>('SELECT id, insurance_enc FROM order_health_insurances WHERE user_id = $1 ORDER BY created_at', [
      userId,
    ]);

  it('keeps it encrypted under the order health_insurance_id, prints it on the requisition', async () => {
    const created = await order({ billing_type: 'commercial_insurance', health_insurance: INSURANCE, priority: true });
    expect(created.status).toBe(200);
    const orderId: string = created.body.order.id;
    const insuranceId: string = created.body.order.health_insurance_id;
    expect(insuranceId).toMatch(UUID);
    expect(created.body.order.billing_type).toBe('commercial_insurance');
    const fetched = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}`, { key: tenant.apiKey });
    expect(fetched.body.health_insurance_id).toBe(insuranceId);

    const rows = await insuranceRows();
    expect(rows.map((row) => row.id)).toEqual([insuranceId]);
    for (const plain of ['W987654321', 'AETNA', 'Villanueva', 'Fatigue', PNG.slice(0, 24)]) expect(rows[0].insurance_enc).not.toContain(plain);

    const { text } = await requisitionOf(orderId);
    expect(text).toContain('Priority: STAT');
    expect(text).toContain('Bill to: Commercial insurance');
    expect(text).toContain('Payor code: AETNA-60054');
    expect(text).toContain('Member ID: W987654321');
    expect(text).toContain('Responsible party: Spouse, Sam Villanueva');
    expect(text).toContain('Insurance diagnosis codes: R73.09');
    // The clinical notes of the insurance request are not billing: not on the form.
    expect(text).not.toContain('Fatigue');

    // A recreation is billed to the same insurance.
    const recreated = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/recreate`, {
      key: tenant.apiKey,
      body: { update_reason: 'PATIENT_DETAILS_CHANGED' },
    });
    expect(recreated.status).toBe(200);
    expect(recreated.body.order).toMatchObject({ origin: 'recreation', billing_type: 'commercial_insurance', health_insurance_id: insuranceId });
  });

  it('an order without one names none, and its form says who is billed, at routine priority', async () => {
    const created = await order({});
    expect(created.status).toBe(200);
    expect(created.body.order.health_insurance_id).toBeNull();
    const orderId: string = created.body.order.id;
    const { text } = await requisitionOf(orderId);
    expect(text).toContain('Bill to: Client (the ordering organisation)');
    expect(text).toContain('Priority: Routine');
    expect(text).not.toContain('Payor code');
  });

  it("a kit registered with one names it from the registration on, with the physician's signature", async () => {
    const created = await call(stack.apiUrl, 'POST', '/v3/order/testkit', { key: tenant.apiKey, body: testkitBody(userId) });
    expect(created.status).toBe(200);
    expect(created.body.order.health_insurance_id).toBeNull();
    const orderId: string = created.body.order.id;
    // A kit is registered once it is with the customer.
    await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test?final_status=with_customer`, { key: tenant.apiKey, body: {} });
    await orderReaches(stack, tenant, orderId, 'with_customer');
    const registered = await call(stack.apiUrl, 'POST', '/v3/order/testkit/register', {
      key: tenant.apiKey,
      body: {
        sample_id: created.body.order.sample_id,
        patient_details: patientDetails(),
        patient_address: patientAddress(),
        health_insurance: INSURANCE,
        physician: { ...PHYSICIAN, signature_image: { content: PNG, content_type: 'image/png' } },
      },
    });
    expect(registered.status).toBe(200);
    const insuranceId: string = registered.body.order.health_insurance_id;
    expect(insuranceId).toMatch(UUID);
    expect((await insuranceRows()).map((row) => row.id)).toContain(insuranceId);
    // The registering physician's signature is kept for the requisition.
    expect(await stack.db.query('SELECT 1 FROM order_requisition_inputs WHERE order_id = $1', [orderId])).toHaveLength(1);
  });

  it.each([
    [
      'an image type other than JPEG or PNG',
      { ...INSURANCE, front_image: { content: PNG, content_type: 'image/gif' } },
      ['body', 'health_insurance', 'front_image', 'content_type'],
    ],
    [
      'image content that is not base64',
      { ...INSURANCE, back_image: { content: 'not base64!', content_type: 'image/png' } },
      ['body', 'health_insurance', 'back_image', 'content'],
    ],
    [
      'a diagnosis code that is not an ICD-10-CM code',
      { ...INSURANCE, diagnosis_codes: ['R73.09', 'fatigue'] },
      ['body', 'health_insurance', 'diagnosis_codes', 1],
    ],
    [
      'a responsible party without a name',
      { ...INSURANCE, responsible_details: { ...INSURANCE.responsible_details, first_name: '' } },
      ['body', 'health_insurance', 'responsible_details', 'first_name'],
    ],
  ])('refuses %s with 422 naming the field, and stores nothing', async (_case, insurance, loc) => {
    const before = (await insuranceRows()).length;
    const refused = await order({ billing_type: 'commercial_insurance', health_insurance: insurance });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(loc);
    expect(await insuranceRows()).toHaveLength(before);
  });
});

describe("the order's ICD-10-CM diagnosis codes", () => {
  it('are kept in capitals, answered on the order and printed on the requisition', async () => {
    const created = await order({ icd_codes: ['e78.5', ' Z0000 '] });
    expect(created.status).toBe(200);
    expect(created.body.order.icd_codes).toEqual(['E78.5', 'Z0000']);
    const orderId: string = created.body.order.id;
    const fetched = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}`, { key: tenant.apiKey });
    expect(fetched.body.icd_codes).toEqual(['E78.5', 'Z0000']);
    const { text } = await requisitionOf(orderId);
    expect(text).toContain('E78.5, Z0000');
  });

  it.each([['high cholesterol'], ['E78-5'], ['78.5'], ['E78.12345'], ['']])('refuses %j with 422 naming which code, and creates no order', async (bad) => {
    const before = await stack.db.query('SELECT count(*)::int AS n FROM orders WHERE user_id = $1', [userId]);
    const refused = await order({ icd_codes: ['E78.5', bad] });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'icd_codes', 1]);
    expect(refused.body.detail[0].msg).toContain('not an ICD-10-CM code');
    expect(await stack.db.query('SELECT count(*)::int AS n FROM orders WHERE user_id = $1', [userId])).toEqual(before);
  });
});

describe('an order with ask-at-order-entry answers and a physician signature', () => {
  let markerIds: number[];
  /** The lipid panel's questions, as the lab test shows them: a fasting choice, and hours since the last meal. */
  let fasting: { id: number; answers: Array<{ code: string; value: string }> };
  let hours: { id: number; constraint: string };

  beforeAll(async () => {
    const test = await call(stack.apiUrl, 'GET', `/v3/lab_tests/${LABCORP_KIT}`, { key: tenant.apiKey });
    markerIds = (test.body.markers as Array<{ id: number }>).map((marker) => marker.id);
    const questions = test.body.markers[0].aoe.questions;
    fasting = questions.find((question: { code: string }) => question.code === 'FASTING');
    hours = questions.find((question: { code: string }) => question.code === 'FASTHRS');
  });

  it("shows each marker's questions on the lab test, and an SDK client reads them", async () => {
    expect(fasting).toMatchObject({
      type: 'choice',
      required: false,
      value: 'Has the patient fasted for at least 8 hours?',
      answers: [
        { code: 'Y', value: 'Yes' },
        { code: 'N', value: 'No' },
      ],
    });
    expect(hours).toMatchObject({ type: 'numeric', constraint: '0-72' });
    const client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, maxRetries: 0 });
    const markers = await client.labTests.getMarkers({ labId: 2, name: 'Lipid Panel' });
    expect(markers.markers.find((marker) => marker.id === markerIds[0])?.aoe?.questions.map((question) => question.code)).toEqual(['FASTING', 'FASTHRS']);
  });

  const signed = { ...PHYSICIAN, signature_image: { content: PNG, content_type: 'image/png' } };
  const signedOrder = (overrides: Record<string, unknown>) => order({ physician: signed, ...overrides });
  const inputRows = async (orderId: string) =>
    stack.db.query<{ inputs_enc: string }[]>('SELECT inputs_enc FROM order_requisition_inputs WHERE order_id = $1', [orderId]);

  it('keeps them encrypted, prints them on the requisition, and a recreation keeps them', async () => {
    const created = await signedOrder({
      aoe_answers: [
        { marker_id: markerIds[0], question_id: fasting.id, answer: 'yes' },
        { marker_id: markerIds[0], question_id: hours.id, answer: '12' },
      ],
    });
    expect(created.status).toBe(200);
    const orderId: string = created.body.order.id;
    // The view is Junction's: neither is part of it.
    expect(created.body.order).not.toHaveProperty('aoe_answers');
    expect(created.body.order.physician).toEqual({ first_name: 'Imani', last_name: 'Castellanos', npi: '1234567893', email: null, licensed_states: null });
    const [row] = await inputRows(orderId);
    expect(row.inputs_enc).not.toContain('meal');
    expect(row.inputs_enc).not.toContain(PNG.slice(0, 24));

    const { pdf, text } = await requisitionOf(orderId);
    expect(text).toMatch(/ASK AT ORDER ENTRY .+, Has the patient fasted for at least 8 hours\?: yes .+, Hours since the last meal: 12/);
    expect(text).toContain('Signature:');
    expect(pdf.toString('latin1')).toContain('/Subtype /Image');

    const recreated = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/recreate`, { key: tenant.apiKey, body: { update_reason: 'OTHER' } });
    expect(recreated.status).toBe(200);
    const copied = await inputRows(recreated.body.order.id);
    expect(copied).toHaveLength(1);
  });

  it.each([
    [
      'an answer about a marker the test does not have',
      () => ({ aoe_answers: [{ marker_id: 999_999_999, question_id: 1, answer: 'Yes' }] }),
      ['body', 'aoe_answers', 0, 'marker_id'],
    ],
    ['an empty answer', () => ({ aoe_answers: [{ marker_id: markerIds[0], question_id: fasting.id, answer: ' ' }] }), ['body', 'aoe_answers', 0, 'answer']],
    [
      'a question the marker does not ask',
      () => ({ aoe_answers: [{ marker_id: markerIds[0], question_id: 1001, answer: 'Yes' }] }),
      ['body', 'aoe_answers', 0, 'question_id'],
    ],
    [
      'a choice that is not one of the answers',
      () => ({ aoe_answers: [{ marker_id: markerIds[0], question_id: fasting.id, answer: 'maybe' }] }),
      ['body', 'aoe_answers', 0, 'answer'],
    ],
    [
      'a number out of its range',
      () => ({ aoe_answers: [{ marker_id: markerIds[0], question_id: hours.id, answer: '96' }] }),
      ['body', 'aoe_answers', 0, 'answer'],
    ],
    [
      'a number that is not one',
      () => ({ aoe_answers: [{ marker_id: markerIds[0], question_id: hours.id, answer: 'twelve' }] }),
      ['body', 'aoe_answers', 0, 'answer'],
    ],
    [
      'a signature that is not the image it claims',
      () => ({ physician: { ...PHYSICIAN, signature_image: { content: PNG, content_type: 'image/jpeg' } } }),
      ['body', 'physician', 'signature_image', 'content'],
    ],
  ])('refuses %s with 422 naming the field, and stores no order', async (_case, overrides, loc) => {
    const before = await call(stack.apiUrl, 'GET', `/v3/orders?user_id=${userId}`, { key: tenant.apiKey });
    const refused = await signedOrder(overrides());
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(loc);
    const after = await call(stack.apiUrl, 'GET', `/v3/orders?user_id=${userId}`, { key: tenant.apiKey });
    expect(after.body.total).toBe(before.body.total);
  });
});

describe("the patient's consents", () => {
  it('are printed on the requisition, with version and time', async () => {
    const created = await order({
      consents: [{ consentType: 'hipaa-authorization', version: 'v3', timeOfConsent: '2026-11-20T15:04:00Z' }, { consentType: 'telehealth-informed-consent' }],
    });
    expect(created.status).toBe(200);
    const { text } = await requisitionOf(created.body.order.id);
    expect(text).toContain('PATIENT CONSENTS HIPAA authorization: version v3, given 2026-11-20 15:04 UTC Telehealth informed consent: time not given');
  });

  it.each([
    ['an unknown consent type', { consentType: 'pinky-promise' }, ['body', 'consents', 0, 'consentType']],
    ['a time that is not a date and time', { consentType: 'privacy-policy', timeOfConsent: 'yesterday' }, ['body', 'consents', 0, 'timeOfConsent']],
  ])('refuses %s with 422 naming the field', async (_case, consent, loc) => {
    const refused = await order({ consents: [consent] });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(loc);
  });
});
