import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { labReportWorkflowId } from '../../workflows/contract';
import { eventually } from '../helpers/eventually';
import { textReportPdf } from '../helpers/lab-report-files';
import { call, createTenant, spawnBuiltWorker, startLabReportWorker, startStack, type Tenant, type TestStack } from '../helpers/stack';
import { rasterise, scannedPdf } from '../fixtures/lab-reports/raster';

const EventType = temporal.api.enums.v1.EventType;
const PendingActivityState = temporal.api.enums.v1.PendingActivityState;

/**
 * A lab report worker process killed (SIGKILL) while it OCRs a scanned report: once its
 * heartbeats stop, the step runs again on another worker and the job completes once — one
 * `completed` event, each step's output stored once.
 */
let stack: TestStack;
let tenant: Tenant;
let child: ChildProcess | null = null;
let replacement: { stop(): Promise<void> } | null = null;

beforeAll(async () => {
  // Temporal sends heartbeats at most every 0.8 of the timeout, so a live worker has a fifth of
  // it to spare: 3 s (0.6 s to spare) timed a loaded CI machine's live worker out on every
  // attempt. 10 s and more attempts keep the killed worker's timeout the only one.
  stack = await startStack({
    labReportWorker: false,
    env: { LAB_REPORT_HEARTBEAT_TIMEOUT: '10s', LAB_REPORT_RETRY_INTERVAL: '200ms', LAB_REPORT_MAX_ATTEMPTS: '20' },
  });
  tenant = await createTenant(stack.db);
}, 120_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await replacement?.stop();
  await stack?.close();
});

test('the job completes once after its worker is killed mid-extract', async () => {
  // Lab reports only.
  child = spawnBuiltWorker({ WORKER_ROLES: 'lab-reports', LAB_REPORT_TASK_QUEUE: stack.config.labReports.taskQueue });
  // The scan is made before the first request, so the upload follows the user's at once: made
  // between them (seconds of CPU on a loaded CI machine), the upload once failed with ECONNRESET
  // before any answer, on fetch's pooled connection (2026-12-02; an idle close is the likely cause).
  const scan = await scannedPdf(await rasterise(await textReportPdf(), 1, 200), 7);
  const user = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `crash-${randomUUID()}` } });
  const form = new FormData();
  form.append('file', new Blob([scan]), 'scan.pdf');
  form.append('user_id', user.body.user_id);
  const created = (await (
    await fetch(`${stack.apiUrl}/lab_report/v1/parser/job`, { method: 'POST', headers: { 'x-service-api-key': tenant.apiKey }, body: form })
  ).json()) as { id: string };
  const handle = stack.temporal.workflow.getHandle(labReportWorkflowId(created.id));

  await eventually(
    async () => {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      return pending.some(
        (activity) => activity.activityType?.name === 'extractLabReport' && activity.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
      )
        ? true
        : undefined;
    },
    'the extract step running on the child worker',
    180_000,
    100,
  );
  child.kill('SIGKILL');
  replacement = await startLabReportWorker(stack.api, stack.config);

  const job = await eventually(
    async () => {
      const read = await call(stack.apiUrl, 'GET', `/lab_report/v1/parser/job/${created.id}`, { key: tenant.apiKey });
      return ['completed', 'failed'].includes(read.body.status) ? read.body : undefined;
    },
    'the job to finish',
    240_000,
    500,
  );
  // A failed job says why: the last failure of its step, from the workflow's history.
  expect({ status: job.status, lastFailure: job.status === 'completed' ? null : await lastActivityFailure(handle) }).toEqual({
    status: 'completed',
    lastFailure: null,
  });
  expect(job.data.results.length).toBeGreaterThan(0);

  const events = await stack.db.query(`SELECT event_type FROM event_outbox WHERE subject_id = $1 ORDER BY created_at`, [created.id]);
  expect(events.map((row: { event_type: string }) => row.event_type)).toEqual(['lab_report.parsing_job.created', 'lab_report.parsing_job.updated']);
  const stages = await stack.db.query(`SELECT stage FROM lab_report_artifacts WHERE job_id = $1 ORDER BY stage`, [created.id]);
  expect(stages.map((row: { stage: string }) => row.stage)).toEqual(['extracted', 'matched', 'parsed']);

  // The extract that completed was a later attempt than the one the killed worker held.
  const history = await handle.fetchHistory();
  const extractScheduled = (history.events ?? []).find(
    (event) =>
      event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && event.activityTaskScheduledEventAttributes?.activityType?.name === 'extractLabReport',
  );
  const started = (history.events ?? []).find(
    (event) =>
      event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED &&
      String(event.activityTaskStartedEventAttributes?.scheduledEventId) === String(extractScheduled?.eventId),
  );
  expect(started?.activityTaskStartedEventAttributes?.attempt).toBeGreaterThan(1);
  expect((await handle.result()).status).toBe('completed');
}, 420_000);

async function lastActivityFailure(handle: { fetchHistory(): Promise<temporal.api.history.v1.IHistory> }): Promise<string> {
  const ended = ((await handle.fetchHistory()).events ?? []).filter(
    (event) => event.activityTaskFailedEventAttributes || event.activityTaskTimedOutEventAttributes,
  );
  const last = ended.at(-1);
  const failure = last?.activityTaskFailedEventAttributes?.failure ?? last?.activityTaskTimedOutEventAttributes?.failure;
  return JSON.stringify(failure ?? 'no activity failed');
}
