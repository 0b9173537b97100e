import { randomUUID } from 'node:crypto';
import { VitalClient } from '@tryvital/vital-node';
import { labReportWorkflowId, SEARCH_ATTRIBUTES } from '../../workflows/contract';
import { eventually } from '../helpers/eventually';
import { PNG_SIGNATURE, textReportPdf } from '../helpers/lab-report-files';
import { call, createTenant, startStack, type Tenant, type TestStack, teamManagementApi } from '../helpers/stack';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Parsing jobs end to end: an uploaded report runs through its workflow on the lab report task
 * queue to a completed job with LOINC-coded results (read through the SDK), a report that cannot
 * be read ends `failed` with its reason, each status change reaches the team's endpoint once and
 * signed, and a team with human review completes jobs through the review endpoint.
 */
let stack: TestStack;
let tenant: Tenant;
let reviewing: Tenant;
let receiver: WebhookReceiver;
let userId: string;
let reviewingUserId: string;

const sdk = (key: string) =>
  new VitalClient({ baseUrl: stack.apiUrl, apiKey: key, headers: { 'x-service-api-key': key }, maxRetries: 0, timeoutInSeconds: 60 });

async function createUser(key: string): Promise<string> {
  const created = await call(stack.apiUrl, 'POST', '/v2/user', { key, body: { client_user_id: `lab-report-${randomUUID()}` } });
  return created.body.user_id as string;
}

async function subscribe(of: Tenant, path: string): Promise<void> {
  const api = teamManagementApi(stack, of, 'sandbox');
  const endpoint = await api('POST', '/webhook', { url: receiver.url(path) });
  expect(endpoint.status).toBe(200);
  receiver.secret(path, (await api('GET', `/webhook/${endpoint.body.id}/secret`)).body.key);
}

/** The job as GET shows it once its status is one of `statuses`. */
const jobWhen = (key: string, jobId: string, ...statuses: string[]) =>
  eventually(
    async () => {
      const job = await call(stack.apiUrl, 'GET', `/lab_report/v1/parser/job/${jobId}`, { key });
      return statuses.includes(job.body.status) ? job.body : undefined;
    },
    `job ${jobId} ${statuses.join('|')}`,
    120_000,
    250,
  );

/** The signed webhooks received for a job, in order. */
const webhooksOf = (path: string, jobId: string) => receiver.forPath(path).filter((request) => request.json?.data?.id === jobId);

beforeAll(async () => {
  stack = await startStack({
    labReportWorker: true,
    management: true,
    events: true,
    env: { EVENTS_RELAY_POLL_INTERVAL: '200ms', LAB_REPORT_RETRY_INTERVAL: '200ms' },
  });
  tenant = await createTenant(stack.db);
  reviewing = await createTenant(stack.db);
  receiver = await WebhookReceiver.start();
  await subscribe(tenant, '/team');
  await subscribe(reviewing, '/reviewing');
  userId = await createUser(tenant.apiKey);
  reviewingUserId = await createUser(reviewing.apiKey);
  const enabled = await teamManagementApi(stack, reviewing)('PATCH', '', { lab_report_human_review_enabled: true });
  expect(enabled.status).toBe(200);
  expect(enabled.body.lab_report_human_review_enabled).toBe(true);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

test('a text PDF becomes a completed job with LOINC-coded results; created and completed are sent once, signed', async () => {
  const client = sdk(tenant.apiKey);
  const created = await client.labReport.parserCreateJob({ data: await textReportPdf(), filename: 'report.pdf' }, { userId });
  await jobWhen(tenant.apiKey, created.id, 'completed', 'failed');
  const job = await client.labReport.parserGetJob(created.id);
  expect(job.status).toBe('completed');
  expect(job.data?.metadata.labName).toMatch(/Northwind/);
  const glucose = job.data?.results.find((result) => result.testName === 'Glucose');
  expect(glucose).toMatchObject({ value: '92', units: 'mg/dL', minReferenceRange: 70, maxReferenceRange: 99 });
  expect(glucose?.loincMatches?.[0]?.loincCode).toBe('2345-7');

  const handle = stack.temporal.workflow.getHandle(labReportWorkflowId(created.id));
  // The job is completed in Postgres a workflow task before the workflow records it for ops.
  expect(await handle.result()).toEqual({ status: 'completed', failureReason: null });
  const description = await handle.describe();
  expect(description.taskQueue).toBe(stack.config.labReports.taskQueue);
  expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.teamId)).toBe(tenant.teamId);
  expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.labReportStatus)).toBe('completed');

  const delivered = await eventually(() => {
    const hooks = webhooksOf('/team', created.id);
    return hooks.some((hook) => hook.json.event_type === 'lab_report.parsing_job.updated') ? hooks : undefined;
  }, 'the updated webhook');
  expect(delivered.every((hook) => hook.verified)).toBe(true);
  const updated = delivered.filter((hook) => hook.json.event_type === 'lab_report.parsing_job.updated');
  expect(new Set(updated.map((hook) => hook.webhookId)).size).toBe(1);
  expect(updated[0].json).toMatchObject({ team_id: tenant.teamId, user_id: userId, data: { id: created.id, status: 'completed', is_reviewed: false } });
  expect(updated[0].json.data.data.results.length).toBe(job.data?.results.length);
  const rows = await stack.db.query(`SELECT event_type FROM event_outbox WHERE subject_id = $1 ORDER BY created_at`, [created.id]);
  expect(rows.map((row: { event_type: string }) => row.event_type)).toEqual(['lab_report.parsing_job.created', 'lab_report.parsing_job.updated']);
});

test('an image that cannot be decoded ends the job failed with invalid_input, announced once', async () => {
  const form = new FormData();
  form.append('file', new Blob([Buffer.concat([PNG_SIGNATURE, Buffer.alloc(256)])]), 'scan.png');
  form.append('user_id', userId);
  const response = await fetch(`${stack.apiUrl}/lab_report/v1/parser/job`, { method: 'POST', headers: { 'x-service-api-key': tenant.apiKey }, body: form });
  const created = (await response.json()) as { id: string };
  const job = await jobWhen(tenant.apiKey, created.id, 'completed', 'failed');
  expect(job).toMatchObject({ status: 'failed', failure_reason: 'invalid_input', data: null });
  const updated = await eventually(() => {
    const hooks = webhooksOf('/team', created.id).filter((hook) => hook.json.event_type === 'lab_report.parsing_job.updated');
    return hooks.length ? hooks : undefined;
  }, 'the failed webhook');
  expect(updated[0].json.data).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
});

test('with human review the job waits in pending_review; the review completes it with is_reviewed', async () => {
  const created = await sdk(reviewing.apiKey).labReport.parserCreateJob(
    { data: await textReportPdf(), filename: 'report.pdf' },
    { userId: reviewingUserId, needsHumanReview: true },
  );
  expect(created.needsHumanReview).toBe(true);
  const pending = await jobWhen(reviewing.apiKey, created.id, 'pending_review', 'completed', 'failed');
  expect(pending.status).toBe('pending_review');
  expect(pending.data.results.length).toBeGreaterThan(0);
  expect((await sdk(reviewing.apiKey).labReport.parserGetJob(created.id)).status).toBe('pending_review');

  const path = `/lab_report/v1/parser/job/${created.id}/review`;
  const foreign = await call(stack.apiUrl, 'POST', path, { key: tenant.apiKey, body: {} });
  expect(foreign.status).toBe(404);
  const corrected = pending.data.results.map((result: { test_name: string; value: string }) =>
    result.test_name === 'Glucose' ? { ...result, value: '93' } : result,
  );
  const reviewed = await call(stack.apiUrl, 'POST', path, {
    key: reviewing.apiKey,
    body: { results: corrected, metadata: { lab_name: 'Northwind Clinical Laboratory (reviewed)' } },
  });
  expect(reviewed.status).toBe(200);
  expect(reviewed.body).toMatchObject({ id: created.id, status: 'completed', is_reviewed: true, needs_human_review: true });
  expect(reviewed.body.data.metadata.lab_name).toBe('Northwind Clinical Laboratory (reviewed)');
  expect(reviewed.body.data.results.find((result: { test_name: string }) => result.test_name === 'Glucose').value).toBe('93');

  const again = await call(stack.apiUrl, 'POST', path, { key: reviewing.apiKey, body: {} });
  expect(again).toMatchObject({ status: 409, body: { detail: 'This parsing job has already been reviewed.' } });

  const statuses = await eventually(() => {
    const hooks = webhooksOf('/reviewing', created.id).filter((hook) => hook.json.event_type === 'lab_report.parsing_job.updated');
    return hooks.length === 2 ? hooks.map((hook) => hook.json.data.status) : undefined;
  }, 'pending_review and completed webhooks');
  expect(statuses.sort()).toEqual(['completed', 'pending_review']);
});

test('teams without human review get 400 from the review endpoint', async () => {
  const created = await sdk(tenant.apiKey).labReport.parserCreateJob({ data: await textReportPdf(), filename: 'report.pdf' }, { userId });
  const refused = await call(stack.apiUrl, 'POST', `/lab_report/v1/parser/job/${created.id}/review`, { key: tenant.apiKey, body: {} });
  expect(refused).toMatchObject({ status: 400, body: { detail: 'Human review is not enabled for this team.' } });
});

describe("the report's patient against the user's demographics", () => {
  /** A user of the team without human review, with Jane Doe's demographics on file. */
  async function janeDoe(): Promise<string> {
    const id = await createUser(tenant.apiKey);
    const info = await call(stack.apiUrl, 'PATCH', `/v2/user/${id}/info`, {
      key: tenant.apiKey,
      body: {
        first_name: 'Jane',
        last_name: 'Doe',
        email: 'jane.doe@example.com',
        phone_number: '+14155550123',
        gender: 'female',
        dob: '1985-04-12',
        address: { first_line: '1 Market St', country: 'US', zip: '94105', city: 'San Francisco', state: 'CA' },
      },
    });
    expect(info.status).toBe(200);
    return id;
  }

  const upload = async (user: string, report: { patient?: string; dob?: string }) =>
    (await sdk(tenant.apiKey).labReport.parserCreateJob({ data: await textReportPdf(report), filename: 'report.pdf' }, { userId: user })).id;

  test('a report that names the user (LAST, FIRST M, in capitals) is filed as before', async () => {
    const jobId = await upload(await janeDoe(), { patient: 'DOE, JANE M' });
    const job = await jobWhen(tenant.apiKey, jobId, 'pending_review', 'completed', 'failed');
    expect(job).toMatchObject({ status: 'completed', review_reason: null, is_reviewed: false });
  });

  test.each([
    ['another name', { patient: 'Doe, Joan' }, 'patient_name_mismatch'],
    ['another date of birth', { dob: '1985-12-04' }, 'patient_dob_mismatch'],
  ])('a report with %s waits for review with the reason, and a reviewer of a team without review settings files it', async (_case, report, reason) => {
    const jobId = await upload(await janeDoe(), report);
    const job = await jobWhen(tenant.apiKey, jobId, 'pending_review', 'completed', 'failed');
    expect(job).toMatchObject({ status: 'pending_review', review_reason: reason, is_reviewed: false, needs_human_review: false });
    expect((await sdk(tenant.apiKey).labReport.parserGetJob(jobId)).status).toBe('pending_review');
    const pending = await eventually(() => {
      const hooks = webhooksOf('/team', jobId).filter((hook) => hook.json.event_type === 'lab_report.parsing_job.updated');
      return hooks.length ? hooks : undefined;
    }, 'the pending_review webhook');
    expect(pending.map((hook) => hook.json.data)).toEqual([expect.objectContaining({ status: 'pending_review', review_reason: reason })]);

    const reviewed = await call(stack.apiUrl, 'POST', `/lab_report/v1/parser/job/${jobId}/review`, {
      key: tenant.apiKey,
      body: { metadata: { patient_first_name: 'Jane' } },
    });
    expect(reviewed.status).toBe(200);
    expect(reviewed.body).toMatchObject({ status: 'completed', is_reviewed: true, review_reason: reason });
  });

  test('a reviewer rejects a report of another patient with a reason: the job ends rejected, nothing filed, and says so', async () => {
    const jobId = await upload(await janeDoe(), { patient: 'Roe, Richard' });
    expect(await jobWhen(tenant.apiKey, jobId, 'pending_review', 'completed', 'failed')).toMatchObject({
      status: 'pending_review',
      review_reason: 'patient_name_mismatch',
    });
    const path = `/lab_report/v1/parser/job/${jobId}/review`;

    const reasonless = await call(stack.apiUrl, 'POST', path, { key: tenant.apiKey, body: { decision: 'reject' } });
    expect(reasonless.status).toBe(422);
    expect(reasonless.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'reason'], msg: 'A rejection needs a reason.' })]);
    const mixed = await call(stack.apiUrl, 'POST', path, {
      key: tenant.apiKey,
      body: { decision: 'reject', reason: 'x', metadata: { patient_first_name: 'Jane' } },
    });
    expect(mixed.status).toBe(422);

    const rejected = await call(stack.apiUrl, 'POST', path, { key: tenant.apiKey, body: { decision: 'reject', reason: 'The report is of another patient.' } });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      id: jobId,
      status: 'rejected',
      is_reviewed: true,
      review_reason: 'patient_name_mismatch',
      rejection_reason: 'The report is of another patient.',
      data: null,
    });
    // The SDK reads the status it does not know, and finds no results.
    const read = await sdk(tenant.apiKey).labReport.parserGetJob(jobId);
    expect(read.status).toBe('rejected');
    expect(read.data ?? null).toBeNull();

    const again = await call(stack.apiUrl, 'POST', path, { key: tenant.apiKey, body: {} });
    expect(again).toMatchObject({ status: 409, body: { detail: 'This parsing job has already been reviewed.' } });
    const statuses = await eventually(() => {
      const hooks = webhooksOf('/team', jobId).filter((hook) => hook.json.event_type === 'lab_report.parsing_job.updated');
      return hooks.length === 2 ? hooks.map((hook) => hook.json.data.status) : undefined;
    }, 'pending_review and rejected webhooks');
    expect(statuses.sort()).toEqual(['pending_review', 'rejected']);
    expect(webhooksOf('/team', jobId).find((hook) => hook.json.data.status === 'rejected')?.json.data).toMatchObject({
      rejection_reason: 'The report is of another patient.',
      data: null,
    });
  });
});
