import { WorkflowUpdateFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import { createLabReportActivities, type LabReportProcessing } from '../../activities/lab-reports';
import {
  LAB_REPORT_NOT_PENDING_REVIEW,
  type LabReportReview,
  labReportState,
  labReportWorkflowId,
  type LabReportWorkflowInput,
  type ParsingFailureReason,
  rejectLabReport,
  reviewLabReport,
  SEARCH_ATTRIBUTES,
} from '../../workflows/contract';
import { startWorkflowHarness, writeFixtureHistories, waitFor, type WorkflowHarness } from '../helpers/workflow-harness';

const EventType = temporal.api.enums.v1.EventType;

/** A report the pipeline refuses, as src/lab-reports/parsing throws it (matched by name). */
class ReportParseFailure extends Error {
  override readonly name = 'ReportParseFailure';
  constructor(readonly reason: string) {
    super(`refused: ${reason}`);
  }
}

/** The processing service as the activities see it: scripted per job, recording every call. */
class FakeProcessing implements LabReportProcessing {
  readonly calls: string[] = [];
  /** What a step does for a job: throw this (every attempt), or wait for the promise. */
  readonly failing = new Map<string, { step: string; error: () => Error }>();
  readonly holding = new Map<string, Promise<void>>();

  private async run(step: string, jobId: string): Promise<void> {
    this.calls.push(`${step}:${jobId}`);
    await this.holding.get(`${step}:${jobId}`);
    const failure = this.failing.get(jobId);
    if (failure?.step === step) throw failure.error();
  }

  extract = (jobId: string) => this.run('extract', jobId);
  parse = (jobId: string) => this.run('parse', jobId);
  match = (jobId: string) => this.run('match', jobId);
  /** Jobs whose report names another patient than their user: storing sends them to review. */
  readonly mismatched = new Set<string>();
  storeResults = async (jobId: string, pendingReview: boolean) => {
    const status = pendingReview || this.mismatched.has(jobId) ? ('pending_review' as const) : ('completed' as const);
    this.calls.push(`store:${jobId}:${status}`);
    await this.holding.get(`store:${jobId}`);
    return { status };
  };
  fail = async (jobId: string, reason: ParsingFailureReason) => void this.calls.push(`fail:${jobId}:${reason}`);
  reviews: LabReportReview[] = [];
  completeReview = async (jobId: string, review: LabReportReview) => {
    this.calls.push(`review:${jobId}`);
    this.reviews.push(review);
  };
  reject = async (jobId: string, rejection: { reason: string }) => void this.calls.push(`reject:${jobId}:${rejection.reason}`);

  of(jobId: string): string[] {
    return this.calls.filter((call) => call.split(':')[1] === jobId).map((call) => call.replace(`:${jobId}`, ''));
  }

  readonly activities = createLabReportActivities(this);
}

/**
 * The lab report workflow on the real dev server with a fake processing service behind the real
 * activities: the steps in order, a refused report and a step failing every attempt each end the
 * job with its failure_reason (the workflow completes), and review waits for the update.
 */
describe('lab report workflow', () => {
  let harness: WorkflowHarness<FakeProcessing>;
  let fake: FakeProcessing;
  /** Histories worth keeping as replay fixtures: `WORKFLOW_FIXTURES=1 npx jest <this file>`. */
  const fixtures: Record<string, string> = {};

  beforeAll(async () => {
    fake = new FakeProcessing();
    harness = await startWorkflowHarness(fake);
  });
  afterAll(async () => {
    await writeFixtureHistories(harness.client, fixtures);
    await harness?.close();
  });

  /** Starts a job's workflow; `prepare` scripts the fake for the job before the workflow runs. */
  const start = async (humanReview = false, prepare: (jobId: string) => void = () => undefined) => {
    const input: LabReportWorkflowInput = {
      jobId: randomUUID(),
      teamId: randomUUID(),
      humanReview,
      timers: { stepTimeout: '30s', heartbeatTimeout: '10s', retryInterval: '50ms', maxAttempts: 3 },
    };
    prepare(input.jobId);
    const handle = await harness.client.workflow.start('labReportWorkflow', {
      workflowId: labReportWorkflowId(input.jobId),
      taskQueue: harness.taskQueue,
      args: [input],
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTES.teamId, value: input.teamId },
        { key: SEARCH_ATTRIBUTES.labReportStatus, value: 'started' },
      ],
    });
    return { handle, jobId: input.jobId };
  };

  const eventNames = async (workflowId: string) =>
    ((await harness.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []).map((event) =>
      EventType[event.eventType ?? 0].replace(/^EVENT_TYPE_/, ''),
    );

  it('extracts, parses, matches and stores, and shows the status to ops', async () => {
    const { handle, jobId } = await start();
    expect(await handle.result()).toEqual({ status: 'completed', failureReason: null });
    expect(fake.of(jobId)).toEqual(['extract', 'parse', 'match', 'store:completed']);
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.labReportStatus)).toBe('completed');
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.teamId)).toBeDefined();
    fixtures['lab-report--completed'] = handle.workflowId;
  });

  it.each(['invalid_input', 'low_quality', 'not_english', 'too_many_pages'] as const)(
    'ends a report refused as %s after one attempt; the workflow itself completes',
    async (reason) => {
      const { handle, jobId } = await start(false, (id) => fake.failing.set(id, { step: 'parse', error: () => new ReportParseFailure(reason) }));
      expect(await handle.result()).toEqual({ status: 'failed', failureReason: reason });
      expect(fake.of(jobId)).toEqual(['extract', 'parse', `fail:${reason}`]);
      expect((await handle.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTES.labReportStatus)).toBe('failed');
      if (reason === 'not_english') fixtures['lab-report--not-english'] = handle.workflowId;
    },
  );

  it('fails the job with processing_error once a step has failed every attempt', async () => {
    const { handle, jobId } = await start(false, (id) => fake.failing.set(id, { step: 'match', error: () => new Error('catalogue unavailable') }));
    expect(await handle.result()).toEqual({ status: 'failed', failureReason: 'processing_error' });
    expect(fake.of(jobId)).toEqual(['extract', 'parse', 'match', 'match', 'match', 'fail:processing_error']);
    expect(await eventNames(handle.workflowId)).toContain('WORKFLOW_EXECUTION_COMPLETED');
    fixtures['lab-report--processing-error'] = handle.workflowId;
  });

  it('with review, waits in pending_review for the update, which refuses while processing', async () => {
    let release!: () => void;
    const { handle, jobId } = await start(true, (id) => fake.holding.set(`extract:${id}`, new Promise<void>((resolve) => (release = resolve))));
    await waitFor(() => (fake.of(jobId).includes('extract') ? true : undefined), 'the extract step');
    const early = await handle.executeUpdate(reviewLabReport, { args: [{}] }).catch((error: unknown) => error);
    expect(early).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((early as WorkflowUpdateFailedError).cause).toMatchObject({ type: LAB_REPORT_NOT_PENDING_REVIEW });
    release();

    await waitFor(async () => ((await handle.query(labReportState)).status === 'pending_review' ? true : undefined), 'pending_review');
    expect((await handle.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTES.labReportStatus)).toBe('pending_review');
    expect(fake.of(jobId)).toEqual(['extract', 'parse', 'match', 'store:pending_review']);

    const review: LabReportReview = { metadata: { lab_name: 'Northwind Clinical Laboratory' } };
    expect(await handle.executeUpdate(reviewLabReport, { args: [review] })).toEqual({ status: 'completed' });
    expect(await handle.result()).toEqual({ status: 'completed', failureReason: null });
    expect(fake.of(jobId)).toEqual(['extract', 'parse', 'match', 'store:pending_review', 'review']);
    expect(fake.reviews.at(-1)).toEqual(review);
    fixtures['lab-report--reviewed'] = handle.workflowId;
  });

  it('takes a review sent while the results are being stored (the row says pending_review already) and applies it', async () => {
    let release!: () => void;
    const { handle, jobId } = await start(true, (id) => fake.holding.set(`store:${id}`, new Promise<void>((resolve) => (release = resolve))));
    await waitFor(() => (fake.of(jobId).includes('store:pending_review') ? true : undefined), 'the store step');
    const review: LabReportReview = { metadata: { lab_name: 'Reviewed while storing' } };
    const answer = handle.executeUpdate(reviewLabReport, { args: [review] });
    await waitFor(async () => ((await eventNames(handle.workflowId)).includes('WORKFLOW_EXECUTION_UPDATE_ACCEPTED') ? true : undefined), 'the update accepted');
    release();
    expect(await answer).toEqual({ status: 'completed' });
    expect(await handle.result()).toEqual({ status: 'completed', failureReason: null });
    expect(fake.of(jobId)).toEqual(['extract', 'parse', 'match', 'store:pending_review', 'review']);
    expect(fake.reviews.at(-1)).toEqual(review);
  });

  it('without review asked, waits in pending_review when storing found another patient on the report', async () => {
    const { handle, jobId } = await start(false, (id) => fake.mismatched.add(id));
    await waitFor(async () => ((await handle.query(labReportState)).status === 'pending_review' ? true : undefined), 'pending_review');
    expect(fake.of(jobId)).toEqual(['extract', 'parse', 'match', 'store:pending_review']);
    expect(await handle.executeUpdate(reviewLabReport, { args: [{}] })).toEqual({ status: 'completed' });
    expect(await handle.result()).toEqual({ status: 'completed', failureReason: null });
    expect(fake.of(jobId)).toEqual(['extract', 'parse', 'match', 'store:pending_review', 'review']);
  });

  it('a rejection on review ends the job rejected with the reason, nothing filed; a second decision is refused', async () => {
    const { handle, jobId } = await start(false, (id) => fake.mismatched.add(id));
    await waitFor(async () => ((await handle.query(labReportState)).status === 'pending_review' ? true : undefined), 'pending_review');
    expect(await handle.executeUpdate(rejectLabReport, { args: [{ reason: 'another patient' }] })).toEqual({ status: 'rejected' });
    expect(await handle.result()).toEqual({ status: 'rejected', failureReason: null });
    expect(fake.of(jobId)).toEqual(['extract', 'parse', 'match', 'store:pending_review', 'reject:another patient']);
    expect((await handle.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTES.labReportStatus)).toBe('rejected');
    fixtures['lab-report--rejected'] = handle.workflowId;
  });

  it('refuses an approval after a rejection, and a rejection while processing', async () => {
    let release!: () => void;
    const { handle, jobId } = await start(true, (id) => fake.holding.set(`extract:${id}`, new Promise<void>((resolve) => (release = resolve))));
    await waitFor(() => (fake.of(jobId).includes('extract') ? true : undefined), 'the extract step');
    const early = await handle.executeUpdate(rejectLabReport, { args: [{ reason: 'too early' }] }).catch((error: unknown) => error);
    expect((early as WorkflowUpdateFailedError).cause).toMatchObject({ type: LAB_REPORT_NOT_PENDING_REVIEW });
    release();
    await waitFor(async () => ((await handle.query(labReportState)).status === 'pending_review' ? true : undefined), 'pending_review');
    await handle.executeUpdate(rejectLabReport, { args: [{ reason: 'unreadable' }] });
    // Refused by the validator, or the workflow has closed already: either way no approval.
    await expect(handle.executeUpdate(reviewLabReport, { args: [{}] })).rejects.toThrow();
    expect(await handle.result()).toEqual({ status: 'rejected', failureReason: null });
    expect(fake.of(jobId)).not.toContain('review');
  });
});
