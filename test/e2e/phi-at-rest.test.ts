import { VitalClient } from '@tryvital/vital-node';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { DataSource } from 'typeorm';
import { PhiCipher } from '../../src/common/crypto';
import { PhiRekeyRepository } from '../../src/ops/phi-rekey.repository';
import { PhiRekeyService } from '../../src/ops/phi-rekey.service';
import { textReportPdf } from '../helpers/lab-report-files';
import { ORDER_TEST_ENV, orderReaches, someStartDate, THYROID_AT_HOME } from '../helpers/orders';
import { codeIn, type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp-receiver';
import { call, createTenant, startStack, subscribeWebhooks, type Tenant, type TestStack } from '../helpers/stack';
import { WebhookReceiver, waitFor } from '../helpers/webhook-receiver';
import { uniquePatient, uniqueSuffix } from '../helpers/unique-patient';

/**
 * PHI at rest: after a run that hands labflow a patient every way the API takes one — a user's
 * birth date and info, an order with patient details and address under an idempotency key, an
 * insurance with insured and guarantor, an at-home appointment with notes, a portal link whose
 * code goes out by e-mail, a lab report to parse, webhooks of all of it to an endpoint that echoes
 * them (labflow keeps the start of each answer) — no column of any table
 * (text, json, jsonb, bytea, arrays, dates: every column, read as text or bytes) holds one of the
 * patient's values in clear, and neither does any key of the stack's Redis (queues, caches).
 */
const suffix = uniqueSuffix();
const PATIENT = uniquePatient('Ottoline', 'Brackenridge', '602', suffix);
/** Phoenix: the sandbox's at-home phlebotomy serves it; the second line is this patient's own. */
const ADDRESS = { first_line: '200 W Washington St', second_line: `Flat Quillon${suffix}`, city: 'Phoenix', state: 'AZ', zip: '85004', country: 'US' };
const PHYSICIAN = { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' };

/** What must not be found in clear, by name: the phone by its digits (whatever formatting is stored). */
const PATIENT_VALUES: Record<string, string> = {
  first_name: PATIENT.first_name,
  last_name: PATIENT.last_name,
  email: PATIENT.email,
  phone: PATIENT.phone_number.slice(1),
  dob: PATIENT.dob,
  address: ADDRESS.second_line,
  member_id: `MBR-${suffix.toUpperCase()}`,
  clinical_notes: `Fasting; history of Quillonitis ${suffix}`,
  /** A diagnosis (ICD-10) no catalogue row holds. */
  icd_code: 'Q87.41',
};

let smtp: SmtpReceiver;
let receiver: WebhookReceiver;
let stack: TestStack;
let tenant: Tenant;
let client: VitalClient;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  receiver = await WebhookReceiver.start();
  stack = await startStack({
    labReportWorker: true,
    management: true,
    events: true,
    sandboxCallbacks: true,
    env: { ...ORDER_TEST_ENV, SMTP_URL: smtp.url, EVENTS_RELAY_POLL_INTERVAL: '200ms', APPOINTMENT_PROVIDER_STEP_DELAY: '300ms' },
  });
  tenant = await createTenant(stack.db, { environment: 'production' });
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
  await subscribeWebhooks(stack, tenant, 'production', receiver, '/hook', []);
  // An endpoint that echoes what it was sent: labflow keeps the start of every answer.
  receiver.respond('/hook', (request) => ({ status: 200, body: request.body }));
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await smtp?.close();
});

const api = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
  call(stack.apiUrl, method, path, { key: tenant.apiKey, ...options });

/**
 * Every column of every table of the database (information_schema.columns) that holds one of
 * `values` in clear: `table.column: name`. Text-like and other columns are read as text
 * (case-insensitive), bytea as bytes.
 */
async function clearCopies(db: DataSource, values: Record<string, string>): Promise<string[]> {
  const columns: Array<{ table_name: string; column_name: string; data_type: string }> = await db.query(
    `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema = current_schema() ORDER BY 1, 2`,
  );
  expect(columns.length).toBeGreaterThan(200);
  const names = Object.keys(values);
  const found: string[] = [];
  for (const { table_name: table, column_name: column, data_type: type } of columns) {
    const rows: Array<{ i: number }> =
      type === 'bytea'
        ? await db.query(
            `SELECT i FROM unnest($1::bytea[]) WITH ORDINALITY AS v(value, i) WHERE EXISTS (SELECT 1 FROM "${table}" WHERE position(v.value IN "${column}") > 0)`,
            [names.map((name) => Buffer.from(values[name], 'utf8'))],
          )
        : await db.query(
            `SELECT i FROM unnest($1::text[]) WITH ORDINALITY AS v(value, i) WHERE EXISTS (SELECT 1 FROM "${table}" WHERE strpos(lower("${column}"::text), lower(v.value)) > 0)`,
            [names.map((name) => values[name])],
          );
    for (const { i } of rows) found.push(`${table}.${column}: ${names[Number(i) - 1]}`);
  }
  return found;
}

/** Every key of the stack's Redis database (BullMQ queues and their jobs, caches) that holds one of `values` in clear, gzip opened. */
async function clearCopiesInRedis(redisUrl: string, values: Record<string, string>): Promise<{ keys: number; found: string[] }> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    const found: string[] = [];
    for (const key of keys) {
      const contents = await contentsOf(redis, key);
      for (const [name, value] of Object.entries(values)) {
        const needle = Buffer.from(value.toLowerCase());
        if (contents.some((content) => Buffer.from(content.toString('latin1').toLowerCase(), 'latin1').includes(needle))) found.push(`${key}: ${name}`);
      }
    }
    return { keys: keys.length, found };
  } finally {
    redis.disconnect();
  }
}

async function contentsOf(redis: Redis, key: string): Promise<Buffer[]> {
  const type = await redis.type(key);
  const raw: Buffer[] =
    type === 'string'
      ? [(await redis.getBuffer(key)) ?? Buffer.alloc(0)]
      : type === 'hash'
        ? Object.entries(await redis.hgetallBuffer(key)).flatMap(([field, value]) => [Buffer.from(field), value])
        : type === 'list'
          ? await redis.lrangeBuffer(key, 0, -1)
          : type === 'set'
            ? await redis.smembersBuffer(key)
            : type === 'zset'
              ? await redis.zrangeBuffer(key, 0, -1)
              : type === 'stream'
                ? [Buffer.from(JSON.stringify(await redis.xrange(key, '-', '+')))]
                : [];
  return [Buffer.from(key), ...raw.map((value) => (value[0] === 0x1f && value[1] === 0x8b ? gunzipSync(value) : value))];
}

test('after a run with a patient through every route that takes one, no table column and no Redis key holds their values in clear', async () => {
  // The user: a birth date, then their info (names, e-mail, phone, birth date, address).
  const user = await api('POST', '/v2/user', { body: { client_user_id: `at-rest-${randomUUID()}`, fallback_birth_date: PATIENT.dob } });
  expect(user.status).toBe(200);
  const userId = user.body.user_id as string;
  expect((await api('PATCH', `/v2/user/${userId}/info`, { body: { ...PATIENT, address: ADDRESS } })).status).toBe(200);

  // An order with the patient's details under an idempotency key (its answer stored), replayed.
  const orderBody = {
    user_id: userId,
    lab_test_id: THYROID_AT_HOME,
    patient_details: PATIENT,
    patient_address: { ...ADDRESS, receiver_name: `${PATIENT.first_name} ${PATIENT.last_name}`, phone_number: PATIENT.phone_number },
    physician: PHYSICIAN,
    clinical_notes: PATIENT_VALUES.clinical_notes,
    icd_codes: [PATIENT_VALUES.icd_code],
  };
  const idempotencyKey = `at-rest-${randomUUID()}`;
  const created = await api('POST', '/v3/order', { body: orderBody, headers: { 'X-Idempotency-Key': idempotencyKey } });
  expect(created.status).toBe(200);
  const orderId = created.body.order.id as string;
  expect(created.body.order.clinical_notes).toBe(PATIENT_VALUES.clinical_notes);
  expect((await api('GET', `/v3/order/${orderId}`)).body).toMatchObject({
    clinical_notes: PATIENT_VALUES.clinical_notes,
    icd_codes: [PATIENT_VALUES.icd_code],
  });
  const replayed = await api('POST', '/v3/order', { body: orderBody, headers: { 'X-Idempotency-Key': idempotencyKey } });
  expect(replayed.body).toEqual(created.body);
  // The same key with another body: refused (and what is stored stays the first answer).
  expect((await api('POST', '/v3/order', { body: { ...orderBody, lab_test_id: randomUUID() }, headers: { 'X-Idempotency-Key': idempotencyKey } })).status).toBe(
    400,
  );

  // Insurance: the insured and the guarantor, with a member id.
  const insurance = await api('POST', `/v2/user/${userId}/insurance`, {
    body: {
      payor_code: '60054',
      member_id: PATIENT_VALUES.member_id,
      group_id: 'GRP-77',
      relationship: 'Self',
      insured: { ...PATIENT, address: ADDRESS },
      guarantor: { first_name: PATIENT.first_name, last_name: PATIENT.last_name, address: ADDRESS, phone_number: PATIENT.phone_number, email: PATIENT.email },
      is_primary: true,
    },
  });
  expect(insurance.status).toBe(200);

  // An at-home appointment at the patient's address, with notes naming them; the availability cached in Redis.
  await orderReaches(stack, tenant, orderId, 'appointment_pending');
  const availability = await api('POST', `/v3/order/phlebotomy/appointment/availability?start_date=${someStartDate()}`, {
    body: { first_line: ADDRESS.first_line, second_line: ADDRESS.second_line, city: ADDRESS.city, state: ADDRESS.state, zip_code: ADDRESS.zip },
  });
  expect(availability.status).toBe(200);
  const [slot] = availability.body.slots.flatMap((day: { slots: Array<{ booking_key: string }> }) => day.slots);
  const booked = await api('POST', `/v3/order/${orderId}/phlebotomy/appointment/book`, {
    body: { booking_key: slot.booking_key, appointment_notes: `Ask for ${PATIENT.first_name} ${PATIENT.last_name}, ${PATIENT.phone_number}` },
    headers: { 'x-idempotency-key': `book-${randomUUID()}` },
  });
  expect(booked.status).toBe(200);

  // The portal: a communications link whose code goes to the patient's e-mail.
  const communications = await client.user.createPortalUrl(userId, { context: 'communications', orderId });
  const code = new URL(communications.url).pathname.slice(3);
  const before = smtp.messages.length;
  const sent = await fetch(`${stack.apiUrl}/p/${code}/send`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'channel=email',
  });
  expect(sent.status).toBe(200);
  expect(codeIn((await smtp.nextTo(PATIENT.email, before)).text)).toMatch(/^\d{6}$/);

  // A lab report naming the patient, parsed.
  const form = new FormData();
  form.append(
    'file',
    new Blob([await textReportPdf({ patient: `${PATIENT.last_name}, ${PATIENT.first_name}` })], { type: 'application/pdf' }),
    `${PATIENT.last_name}-report.pdf`,
  );
  form.append('user_id', userId);
  const upload = await fetch(`${stack.apiUrl}/lab_report/v1/parser/job`, { method: 'POST', headers: { 'x-service-api-key': tenant.apiKey }, body: form });
  expect(upload.status).toBeLessThan(300);
  const jobId = ((await upload.json()) as { id: string }).id;
  await waitFor(
    async () => {
      const job = await api('GET', `/lab_report/v1/parser/job/${jobId}`);
      return job.body?.status !== 'started' && job.body?.status !== 'queued' ? job.body : undefined;
    },
    { timeoutMs: 60_000 },
  );

  // The webhooks of all this were delivered (their payloads carry the patient: stored sealed).
  await waitFor(() => receiver.accepted('/hook').some((request) => JSON.stringify(request.json).includes(PATIENT.first_name)), { timeoutMs: 30_000 });

  const inRedis = await clearCopiesInRedis(stack.config.redisUrl, PATIENT_VALUES);
  expect(inRedis.keys).toBeGreaterThan(0);
  // The portal code (a credential that opens the patient's portal) is stored hashed, nowhere in clear.
  const inDatabase = await clearCopies(stack.db, { ...PATIENT_VALUES, portal_code: code });
  expect({ inDatabase, inRedis: inRedis.found }).toEqual({ inDatabase: [], inRedis: [] });
});

test('a birth date, an idempotency answer and clinical notes stored in plaintext before sealing are still read, and `phi rekey` seals them', async () => {
  const dob = '1931-02-17';
  const notes = `Legacy note ${uniqueSuffix()}`;
  const user = await api('POST', '/v2/user', { body: { client_user_id: `legacy-${randomUUID()}` } });
  const userId = user.body.user_id as string;
  // As a release before sealing left them: the birth date in users.fallback_birth_date, an order's answer in idempotency_keys.response.
  const birthDate = { value: dob, source_slug: 'manual', updated_at: '2026-01-02T03:04:05.000Z' };
  await stack.db.query(`UPDATE users SET fallback_birth_date = $2::jsonb, fallback_birth_date_enc = NULL WHERE id = $1`, [userId, JSON.stringify(birthDate)]);
  const body = {
    user_id: userId,
    lab_test_id: THYROID_AT_HOME,
    patient_details: { ...PATIENT, dob },
    patient_address: { ...ADDRESS, receiver_name: 'R', phone_number: PATIENT.phone_number },
    physician: PHYSICIAN,
  };
  const key = `legacy-${randomUUID()}`;
  const created = await api('POST', '/v3/order', { body, headers: { 'X-Idempotency-Key': key } });
  expect(created.status).toBe(200);
  await stack.db.query(`UPDATE idempotency_keys SET response = $2::jsonb, response_enc = NULL WHERE team_id = $1 AND key = $3`, [
    tenant.teamId,
    JSON.stringify(created.body),
    key,
  ]);
  // An order's clinical notes and ICD codes as a process of the release before sealing writes them, during an upgrade.
  const icd = 'Q87.42';
  await stack.db.query(`UPDATE orders SET clinical_notes = $2, clinical_notes_enc = NULL, icd_codes = $3, icd_codes_enc = NULL WHERE id = $1`, [
    created.body.order.id,
    notes,
    [icd],
  ]);
  expect(await clearCopies(stack.db, { dob, notes, icd })).toEqual(
    expect.arrayContaining(['users.fallback_birth_date: dob', 'idempotency_keys.response: dob', 'orders.clinical_notes: notes', 'orders.icd_codes: icd']),
  );

  const read = async () => ({
    birthDate: (await api('GET', `/v2/user/${userId}`)).body.fallback_birth_date,
    replayed: (await api('POST', '/v3/order', { body, headers: { 'X-Idempotency-Key': key } })).body,
    order: (({ clinical_notes, icd_codes }) => ({ clinical_notes, icd_codes }))((await api('GET', `/v3/order/${created.body.order.id}`)).body),
  });
  const order = { clinical_notes: notes, icd_codes: [icd] };
  expect(await read()).toEqual({ birthDate, replayed: created.body, order });

  const report = await new PhiRekeyService(new PhiRekeyRepository(stack.db), new PhiCipher(stack.config.phiEncryptionKey, stack.config.phiPreviousKeys)).rekey({
    batchSize: 100,
  });
  expect(report.plaintextSealed).toBeGreaterThanOrEqual(4);
  expect(await clearCopies(stack.db, { dob, notes, icd })).toEqual([]);
  expect(await read()).toEqual({ birthDate, replayed: created.body, order });
});
