import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { ApiError } from '../common/errors';
import { MicroBatcher } from '../common/micro-batcher';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { TEMPORAL_CLIENT } from '../core.tokens';
import { orderUpdateError } from '../temporal/workflow-errors';
import { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import { msToNumber } from '@temporalio/common/lib/time';
import {
  type OrderReminderSchedule,
  type OrderWorkflowInput,
  orderWorkflowId,
  sandboxPartnersWorkflowId,
  type SandboxPlay,
  sandboxPlay,
  SEARCH_ATTRIBUTES,
} from '../../workflows/contract';
import { isAppointmentFlow } from '../../workflows/order/order-statuses';
import type { OrderEntity } from './order.entities';
import { OrderReadModel } from './order-read-model';
import { OrdersRepository } from './orders.repository';

/** Orders marked started per UPDATE at most; more wait for the next one. */
const MAX_MARKS_PER_STATEMENT = 500;
/**
 * How long a confirmed start waits for others to share its mark's UPDATE: far below
 * RECONCILER_GRACE (5 s by default), after which the reconciler would start the order again.
 */
const MARK_LINGER_MS = 100;

/** What the creator of an order knows of it when it starts its workflow (OrderWorkflows.start). */
export interface KnownOrder {
  /** The slug of the order's lab (the LabflowLab search attribute). */
  labSlug: string;
  /** The seq of the order's latest event (the workflow input's `seq`). */
  seq: number;
}

/**
 * Starts order workflows. The API starts one right after the order's transaction commits; the
 * reconciler (order-reconciler.ts) starts any the API could not (a crash or a Temporal outage
 * between commit and start). The fixed workflow id `order:<id>`, USE_EXISTING and
 * REJECT_DUPLICATE make a repeated start harmless, also after the workflow has finished; only
 * `restart` (the reconciler healing a stranded order) starts a second run.
 *
 * That a start is confirmed (`workflow_started_at`) is written after it. Order creation does not
 * wait for that write (startAfterCommit): the answer goes out once the workflow has started, and
 * the marks of the orders started within MARK_LINGER_MS share one UPDATE (group commit,
 * MicroBatcher) instead of a statement and a commit each. A mark that is late or lost is safe: the
 * reconciler starts any order whose mark is missing RECONCILER_GRACE after its creation, and
 * for a started workflow that start changes nothing (USE_EXISTING, REJECT_DUPLICATE). A failed
 * mark is logged and left to it; on shutdown the API waits for the marks not yet written.
 * `start` and `restart` (the reconciler, commands on an order not known to be started) write
 * their mark themselves before they resolve.
 */
@Injectable()
export class OrderWorkflows implements BeforeApplicationShutdown {
  private readonly logger = new Logger('orders');
  /** startAfterCommit's marks: one UPDATE at a time, of the orders started within MARK_LINGER_MS. */
  private readonly marks: MicroBatcher<string, void>;
  /** Marks startAfterCommit did not wait for, until written or logged as failed. */
  private readonly unwaitedMarks = new Set<Promise<void>>();

  constructor(
    private readonly orders: OrdersRepository,
    private readonly readModel: OrderReadModel,
    private readonly catalog: LabCatalogRepository,
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {
    this.marks = new MicroBatcher<string, void>(
      async (orderIds) => {
        await this.orders.markWorkflowsStarted(orderIds);
        return orderIds.map(() => undefined);
      },
      { maxBatch: MAX_MARKS_PER_STATEMENT, maxInFlight: 1, lingerMs: MARK_LINGER_MS },
    );
  }

  /** Waits for the marks startAfterCommit did not wait for (each is written or logged), before the pool closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([...this.unwaitedMarks]);
  }

  handle(orderId: string) {
    return this.temporal.workflow.getHandle(orderWorkflowId(orderId));
  }

  /**
   * Runs an update (or a signal) of the order's workflow. A refusal (validator or handler) or a
   * closed workflow becomes a 4xx `{detail}` (orderUpdateError: by error class and failure type).
   */
  async runUpdate<T>(orderId: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw orderUpdateError(error, orderId) ?? error;
    }
  }

  /** Starts the order's workflow unless it is known to be started. */
  async ensureStarted(order: OrderEntity): Promise<void> {
    if (order.workflowStartedAt) return;
    await this.start(order);
  }

  /**
   * Starts the order's workflow and records that it started (resolves once the mark is written).
   * `known`: what the caller already knows of the order (its lab's slug, its latest event's seq),
   * so it is not read again; the reconciler knows nothing and reads both.
   */
  async start(order: OrderEntity, known?: KnownOrder): Promise<void> {
    await this.startWorkflow(order, known);
    await this.orders.markWorkflowsStarted([order.id]);
    order.workflowStartedAt = new Date();
  }

  /**
   * Starts the workflow after the order's commit, and has its start recorded without waiting for
   * it. A failure to start, or to record the start, is logged and left to the reconciler.
   */
  async startAfterCommit(order: OrderEntity, known?: KnownOrder): Promise<void> {
    try {
      await this.startWorkflow(order, known);
    } catch (error) {
      this.logger.warn(`order ${order.id}: workflow not started yet (${(error as Error).message}); the reconciler will start it`);
      return;
    }
    order.workflowStartedAt = new Date();
    const mark = this.marks.submit(order.id).catch((error: unknown) => {
      this.logger.warn(
        `order ${order.id}: workflow started, but its start was not recorded (${(error as Error).message}); the reconciler will start it again, which changes nothing`,
      );
    });
    this.unwaitedMarks.add(mark);
    void mark.finally(() => this.unwaitedMarks.delete(mark));
  }

  /** The start itself: a workflow already running or finished under the order's id counts as started. */
  private async startWorkflow(order: OrderEntity, known?: KnownOrder): Promise<void> {
    const labSlug = known ? known.labSlug : (await this.catalog.labsByIds([order.labId]))[0]?.slug;
    const seq = known ? known.seq : await this.orders.latestSeq(order.id);
    try {
      await this.temporal.workflow.start(ORDER_WORKFLOW_TYPE, {
        ...this.startOptions(order, labSlug),
        args: [this.inputFor(order, seq)],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    } catch (error) {
      // REJECT_DUPLICATE: the workflow ran and finished; it is started all the same.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  /**
   * Starts a new run of the workflow of an order whose workflow closed or vanished while the
   * order had not ended (the reconciler's heal): the same workflow id, the input as Postgres has
   * the order now (its latest event's seq and status) and `resume` with what it knows of the
   * order's appointments, so the run picks up where the order stands. ALLOW_DUPLICATE lets a run
   * follow a closed one, even a completed one; FAIL refuses when a run is open, so two
   * reconcilers cannot both start one: the loser gets WorkflowExecutionAlreadyStartedError.
   */
  async restart(order: OrderEntity): Promise<{ runId: string }> {
    const [labSlug, seq, resume] = await Promise.all([
      this.catalog.labsByIds([order.labId]).then((labs) => labs[0]?.slug),
      this.orders.latestSeq(order.id),
      this.readModel.resumeOf(order.id),
    ]);
    const handle = await this.temporal.workflow.start(ORDER_WORKFLOW_TYPE, {
      ...this.startOptions(order, labSlug),
      args: [{ ...this.inputFor(order, seq), resume }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    });
    if (!order.workflowStartedAt) {
      await this.orders.markWorkflowsStarted([order.id]);
      order.workflowStartedAt = new Date();
    }
    return { runId: handle.firstExecutionRunId };
  }

  /** Whether the order runs orderWorkflow (v1), whose sandbox simulation `POST /v3/order/{id}/test` signals. */
  async simulatesInside(orderId: string): Promise<boolean> {
    return (await this.handle(orderId).describe()).type === 'orderWorkflow';
  }

  /**
   * Has the sandbox partners play (sandboxPartnersWorkflow, `sandbox-partners:<id>`): starts them,
   * or redirects those already playing. `delayMs` defaults to SANDBOX_STEP_DELAY. They call the
   * partner webhooks, which need PARTNER_WEBHOOK_SECRET: without it, 503 rather than a silent play.
   */
  async playSandbox(order: OrderEntity, play: Omit<SandboxPlay, 'delayMs'> & { delayMs?: number }): Promise<void> {
    // The partners report through the signed partner webhooks, as real ones do: no secret, no reports.
    if (!this.config.orders.partnerWebhookSecret) {
      throw new ApiError(503, 'The sandbox partners report through the partner webhooks, which are not configured (PARTNER_WEBHOOK_SECRET).');
    }
    const full: SandboxPlay = { ...play, delayMs: play.delayMs ?? msToNumber(this.config.orders.sandboxStepDelay as Parameters<typeof msToNumber>[0]) };
    await this.temporal.workflow.signalWithStart('sandboxPartnersWorkflow', {
      workflowId: sandboxPartnersWorkflowId(order.id),
      taskQueue: this.config.temporal.taskQueue,
      args: [{ orderId: order.id, flow: order.flow, play: full }],
      signal: sandboxPlay,
      signalArgs: [full],
    });
  }

  private startOptions(order: OrderEntity, labSlug: string | undefined) {
    return {
      workflowId: orderWorkflowId(order.id),
      taskQueue: this.config.temporal.taskQueue,
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTES.teamId, value: order.teamId },
        { key: SEARCH_ATTRIBUTES.orderStatus, value: order.lowLevelStatus },
        { key: SEARCH_ATTRIBUTES.collectionMethod, value: order.collectionMethod },
        { key: SEARCH_ATTRIBUTES.lab, value: labSlug ?? String(order.labId) },
      ],
    };
  }

  private inputFor(order: OrderEntity, seq: number): OrderWorkflowInput {
    return {
      orderId: order.id,
      teamId: order.teamId,
      environment: order.environment,
      flow: order.flow,
      seq,
      low: order.lowLevelStatus,
      activateBy: order.activateBy,
      timers: {
        registrationWindow: this.config.orders.registrationWindow as OrderWorkflowInput['timers']['registrationWindow'],
        sampleToLabWindow: this.config.orders.sampleToLabWindow as OrderWorkflowInput['timers']['sampleToLabWindow'],
        sandboxStepDelay: this.config.orders.sandboxStepDelay as OrderWorkflowInput['timers']['sandboxStepDelay'],
      },
      ...(isAppointmentFlow(order.flow)
        ? {
            appointmentTimers: {
              sandboxStepDelay: this.config.orders.sandboxStepDelay as OrderWorkflowInput['timers']['sandboxStepDelay'],
              noShowGrace: this.config.appointments.noShowGrace as OrderWorkflowInput['timers']['sandboxStepDelay'],
            },
          }
        : {}),
      reminders: this.reminderSchedule(),
    };
  }

  /** REMINDER_* as the workflow takes it (fixed for the order when its workflow starts). */
  private reminderSchedule(): OrderReminderSchedule {
    const reminders = this.config.reminders;
    const durations = (values: string[]) => values as OrderReminderSchedule['bookAppointmentAfter'];
    return {
      bookAppointmentAfter: durations(reminders.bookAppointmentAfter),
      appointmentBefore: durations(reminders.appointmentBefore),
      kitReturnAfter: durations(reminders.kitReturnAfter),
      sendAttempts: reminders.sendAttempts,
      sendRetryInterval: reminders.sendRetryInterval as OrderReminderSchedule['sendRetryInterval'],
    };
  }
}

/**
 * The workflow type every new run of an order starts, of every flow: orderWorkflowV2, whose
 * sandbox orders meet their partners outside it. orderWorkflow stays registered for orders
 * started before it, and OrderWorkflows.simulatesInside tells them apart.
 */
const ORDER_WORKFLOW_TYPE = 'orderWorkflowV2';
