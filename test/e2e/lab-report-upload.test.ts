import { randomUUID } from 'node:crypto';
import { VitalClient, VitalError } from '@tryvital/vital-node';
import { PhiCipher } from '../../src/common/crypto';
import { call, createTenant, startStack, type Tenant, type TestStack, teamManagementApi } from '../helpers/stack';
import { PNG_SIGNATURE, textReportPdf } from '../helpers/lab-report-files';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { eventually } from '../helpers/eventually';

/**
 * Uploading lab reports (`POST /lab_report/v1/parser/job`) and reading jobs back, through the
 * SDK and raw multipart: typing by magic bytes, the 10 MB limit, users and jobs scoped by team,
 * the file stored encrypted, `lab_report.parsing_job.created` signed to the team's endpoint.
 */
let stack: TestStack;
let tenant: Tenant;
let other: Tenant;
let userId: string;
let otherUserId: string;
let receiver: WebhookReceiver;
let pdf: Buffer;

const sdk = (key: string) =>
  new VitalClient({ baseUrl: stack.apiUrl, apiKey: key, headers: { 'x-service-api-key': key }, maxRetries: 0, timeoutInSeconds: 30 });

async function createUser(key: string): Promise<string> {
  const created = await call(stack.apiUrl, 'POST', '/v2/user', { key, body: { client_user_id: `lab-report-${randomUUID()}` } });
  expect(created.status).toBe(200);
  return created.body.user_id as string;
}

/** A raw multipart upload; `file` given as bytes with whatever name and type the caller claims. */
async function upload(
  key: string,
  fields: Record<string, string>,
  file?: { bytes: Buffer; name?: string; type?: string },
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  if (file) form.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.name ?? 'report');
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const response = await fetch(`${stack.apiUrl}/lab_report/v1/parser/job`, { method: 'POST', headers: { 'x-service-api-key': key }, body: form });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  stack = await startStack({ labReportWorker: true, management: true, events: true, env: { EVENTS_RELAY_POLL_INTERVAL: '200ms' } });
  tenant = await createTenant(stack.db);
  other = await createTenant(stack.db);
  userId = await createUser(tenant.apiKey);
  otherUserId = await createUser(other.apiKey);
  receiver = await WebhookReceiver.start();
  pdf = await textReportPdf();
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

test('the SDK uploads a report and reads the job back', async () => {
  const job = await sdk(tenant.apiKey).labReport.parserCreateJob({ data: pdf, filename: 'report.pdf', contentType: 'application/pdf' }, { userId });
  expect(job.id).toBe(job.jobId);
  expect(['upload_pending', 'started']).toContain(job.status);
  expect(job.needsHumanReview).toBe(false);
  expect(job.isReviewed).toBe(false);
  const read = await sdk(tenant.apiKey).labReport.parserGetJob(job.id);
  expect(read.id).toBe(job.id);
  expect(read.jobId).toBe(job.id);
});

test('the file is stored encrypted, with the job and its created event, before the response', async () => {
  const created = await upload(tenant.apiKey, { user_id: userId }, { bytes: pdf, name: 'report.pdf', type: 'application/pdf' });
  expect(created.status).toBe(200);
  const jobId = created.body.id as string;
  const [file] = await stack.db.query(`SELECT content_enc FROM lab_report_files WHERE job_id = $1`, [jobId]);
  expect(file.content_enc.includes(Buffer.from('%PDF'))).toBe(false);
  expect(new PhiCipher(stack.config.phiEncryptionKey).decryptBytes(file.content_enc).equals(pdf)).toBe(true);
  const events = await stack.db.query(`SELECT event_type FROM event_outbox WHERE subject_id = $1`, [jobId]);
  expect(events.map((row: { event_type: string }) => row.event_type)).toEqual(['lab_report.parsing_job.created']);
});

test('types files by their bytes, not their name or declared type', async () => {
  const png = await upload(
    tenant.apiKey,
    { user_id: userId },
    { bytes: Buffer.concat([PNG_SIGNATURE, Buffer.alloc(64)]), name: 'notes.txt', type: 'text/plain' },
  );
  expect(png.status).toBe(200);
  const [row] = await stack.db.query(`SELECT file_kind FROM lab_report_parsing_jobs WHERE id = $1`, [png.body.id]);
  expect(row.file_kind).toBe('png');

  const text = await upload(tenant.apiKey, { user_id: userId }, { bytes: Buffer.from('Glucose 92 mg/dL'), name: 'report.pdf', type: 'application/pdf' });
  expect(text.status).toBe(422);
  expect(text.body.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'value_error' });
  expect(text.body.detail[0].msg).toMatch(/PDF, JPEG or PNG/);

  const empty = await upload(tenant.apiKey, { user_id: userId }, { bytes: Buffer.alloc(0), name: 'report.pdf' });
  expect(empty.status).toBe(422);
  expect(empty.body.detail[0].loc).toEqual(['body', 'file']);
});

test('missing or malformed fields answer 422 in the FastAPI shape; the SDK surfaces it', async () => {
  const noFile = await upload(tenant.apiKey, { user_id: userId });
  expect(noFile.status).toBe(422);
  expect(noFile.body.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'missing' });

  const noUser = await upload(tenant.apiKey, {}, { bytes: pdf });
  expect(noUser.status).toBe(422);
  expect(noUser.body.detail[0]).toMatchObject({ loc: ['body', 'user_id'], type: 'missing' });

  const badFlag = await upload(tenant.apiKey, { user_id: userId, needs_human_review: 'maybe' }, { bytes: pdf });
  expect(badFlag.status).toBe(422);
  expect(badFlag.body.detail[0].loc).toEqual(['body', 'needs_human_review']);

  const error = await sdk(tenant.apiKey)
    .labReport.parserCreateJob({ data: pdf, filename: 'r.pdf' }, { userId: 'not-a-uuid' })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(VitalError);
  expect((error as VitalError).statusCode).toBe(422);
});

test("an unknown user and another team's user are not found; nothing is written", async () => {
  // Only the two teams' jobs: other files running alongside create jobs in the shared database.
  const teams = [tenant.teamId, other.teamId];
  const count = () => stack.db.query(`SELECT count(*)::int AS n FROM lab_report_parsing_jobs WHERE team_id = ANY($1::uuid[])`, [teams]);
  const before = await count();
  for (const user of [randomUUID(), otherUserId]) {
    const refused = await upload(tenant.apiKey, { user_id: user }, { bytes: pdf });
    expect(refused).toEqual({ status: 404, body: { detail: 'User not found.' } });
  }
  const after = await count();
  expect(after[0].n).toBe(before[0].n);
});

test('human review is refused with 400 for a team that has not enabled it', async () => {
  const refused = await upload(tenant.apiKey, { user_id: userId, needs_human_review: 'true' }, { bytes: pdf });
  expect(refused.status).toBe(400);
  expect(refused.body.detail).toMatch(/human review is not enabled/i);
});

test('a file over 10 MB answers 413 {detail}; the JSON body limit does not apply to uploads', async () => {
  const big = Buffer.concat([pdf, Buffer.alloc(10 * 1024 * 1024 - pdf.length + 1, 0x20)]);
  const refused = await upload(tenant.apiKey, { user_id: userId }, { bytes: big });
  expect(refused.status).toBe(413);
  expect(refused.body.detail).toMatch(/10 MB/);

  const justUnder = Buffer.concat([pdf, Buffer.alloc(2 * 1024 * 1024, 0x20)]);
  expect((await upload(tenant.apiKey, { user_id: userId }, { bytes: justUnder })).status).toBe(200);
});

test("jobs are scoped by team: another team's job is not found", async () => {
  const created = await upload(tenant.apiKey, { user_id: userId }, { bytes: pdf });
  expect((await call(stack.apiUrl, 'GET', `/lab_report/v1/parser/job/${created.body.id}`, { key: tenant.apiKey })).status).toBe(200);
  const foreign = await call(stack.apiUrl, 'GET', `/lab_report/v1/parser/job/${created.body.id}`, { key: other.apiKey });
  expect(foreign).toMatchObject({ status: 404, body: { detail: 'Parsing job not found.' } });
  expect((await call(stack.apiUrl, 'GET', `/lab_report/v1/parser/job/${randomUUID()}`, { key: tenant.apiKey })).status).toBe(404);
  expect((await call(stack.apiUrl, 'GET', `/lab_report/v1/parser/job/nope`, { key: tenant.apiKey })).status).toBe(422);
});

test('other routes still refuse multipart bodies', async () => {
  const form = new FormData();
  form.append('client_user_id', 'someone');
  const response = await fetch(`${stack.apiUrl}/v2/user`, { method: 'POST', headers: { 'x-service-api-key': tenant.apiKey }, body: form });
  expect(response.status).toBe(415);
  expect(await response.json()).toEqual({ detail: 'Unsupported content type; send application/json.' });
});

test("lab_report.parsing_job.created reaches the team's endpoint, signed, with the job", async () => {
  const api = teamManagementApi(stack, tenant, 'sandbox');
  const endpoint = await api('POST', '/webhook', { url: receiver.url('/jobs'), filter_types: ['lab_report.parsing_job.created'] });
  expect(endpoint.status).toBe(200);
  receiver.secret('/jobs', (await api('GET', `/webhook/${endpoint.body.id}/secret`)).body.key);
  const created = await upload(tenant.apiKey, { user_id: userId }, { bytes: pdf });
  const delivered = await eventually(() => receiver.forPath('/jobs').find((request) => request.json?.data?.id === created.body.id), 'the created webhook');
  expect(delivered.verified).toBe(true);
  expect(delivered.json).toMatchObject({
    event_type: 'lab_report.parsing_job.created',
    team_id: tenant.teamId,
    user_id: userId,
    data: { id: created.body.id, job_id: created.body.id, status: created.body.status, needs_human_review: false, is_reviewed: false },
  });
});
