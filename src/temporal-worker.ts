import type { INestApplicationContext } from '@nestjs/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, createLabReportActivities } from '../activities';
import type { LabflowConfig } from './config/config';
import { ConnectionReconciler } from './connections/connection-reconciler';
import { ConnectionSyncService } from './connections/connection-sync.service';
import { ConnectionBulkOpsService } from './connections/connection-bulk-ops.service';
import { OutboxService } from './events/outbox.service';
import { FhirExportRunner } from './fhir/export/fhir-export-runner';
import { LabReportProcessingService } from './lab-reports/lab-report-processing.service';
import { LabReportStarter } from './lab-reports/lab-report-starter';
import { AppointmentLifecycleService } from './appointments/appointment-lifecycle.service';
import { SandboxAppointmentPartner } from './appointments/sandbox-appointment-partner';
import { PartnerWebhookClient } from './adapters/sandbox-callbacks/partner-webhook-client';
import { OrderTransitionsService } from './orders/order-transitions.service';
import { OrderSandboxPartners } from './orders/order-sandbox-partners';
import { OrderReconciler } from './orders/order-reconciler';
import { OrderRemindersService } from './reminders/order-reminders.service';
import { labflowDataConverter } from './temporal/payload-codec';
import { tracingActivityInterceptors, tracingWorkflowSinks } from './temporal/tracing';
import { requestIdActivityInterceptors } from './temporal/request-id-interceptors';
import { workflowCodeOptions } from './temporal/workflow-bundle';
import { UsersService } from './users/users.service';

export interface LabflowWorkerOptions {
  /** Overrides the configured task queue (each test file uses its own). */
  taskQueue?: string;
  /** A pre-built bundle (tests bundle once per run); otherwise see workflowCodeOptions. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Where the sandbox partners call labflow's partner webhooks (tests: their API's address); default SANDBOX_PARTNERS_API_URL. */
  partnersApiUrl?: string;
}

/** A Temporal worker for labflow's workflows, with activities wired to the app's services. */
export async function createLabflowWorker(
  app: INestApplicationContext,
  config: LabflowConfig,
  options: LabflowWorkerOptions = {},
): Promise<{ worker: Worker; connection: NativeConnection; workflowCode: string }> {
  // First: a production worker without its bundle stops before it connects anywhere.
  const { description: workflowCode, ...workflowCodeOption } = workflowCodeOptions(config.env, options.workflowBundle, config.tracing.otlpTracesUrl !== null);
  const connection = await NativeConnection.connect(config.temporal.connection);
  const activities = createActivities({
    users: app.get(UsersService),
    events: app.get(OutboxService),
    orders: app.get(OrderTransitionsService),
    appointments: app.get(AppointmentLifecycleService),
    reminders: app.get(OrderRemindersService),
    connections: app.get(ConnectionSyncService),
    linkBulkOps: app.get(ConnectionBulkOpsService),
    sandboxPartners: app.get(OrderSandboxPartners),
    fhirExports: app.get(FhirExportRunner),
    sandboxProvider: app.get(SandboxAppointmentPartner),
    partnerWebhooks: new PartnerWebhookClient(options.partnersApiUrl ?? config.sandboxCallbacks.partnersApiUrl, config.orders.partnerWebhookSecret ?? null),
  });
  // Orders whose workflow the API could not start get it from here (stops when the app closes).
  app.get(OrderReconciler).start();
  // Connections whose workflow closed or vanished while their row remains get a new run from here.
  app.get(ConnectionReconciler).start();
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: options.taskQueue ?? config.temporal.taskQueue,
    activities,
    // Sized so that 10,000 open orders fit one worker under 1 GiB (README "Many open workflows").
    maxCachedWorkflows: config.temporal.worker.maxCachedWorkflows,
    maxConcurrentWorkflowTaskExecutions: config.temporal.worker.maxConcurrentWorkflowTasks,
    maxConcurrentActivityTaskExecutions: config.temporal.worker.maxConcurrentActivities,
    dataConverter: labflowDataConverter(config),
    ...withTracing(workflowCodeOption),
  });
  return { worker, connection, workflowCode };
}

/**
 * The workflow code option plus what tracing needs on every worker that runs that bundle: the
 * bundle's workflow interceptors make spans and hand them to the tracing sink (a worker without
 * the sink logs "unregistered external sink" for each), and activities get their spans too.
 */
function withTracing(
  workflowCodeOption: Omit<ReturnType<typeof workflowCodeOptions>, 'description'>,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'interceptors' | 'sinks'> {
  return {
    ...workflowCodeOption,
    interceptors: {
      ...workflowCodeOption.interceptors,
      // Lists: tracing, and the request id behind the activity (its log lines and the events it writes).
      activity: [...tracingActivityInterceptors(), requestIdActivityInterceptors],
    },
    sinks: { ...tracingWorkflowSinks() },
  };
}

/**
 * The lab report worker: parsing job workflows and their processing activities, on a task queue
 * of their own (LAB_REPORT_TASK_QUEUE) so OCR never delays order workflows; at most
 * LAB_REPORT_CONCURRENCY steps at once, each may keep a core busy. Also starts the sweep that
 * starts the workflows of jobs the API could not.
 */
export async function createLabReportWorker(
  app: INestApplicationContext,
  config: LabflowConfig,
  options: LabflowWorkerOptions = {},
): Promise<{ worker: Worker; connection: NativeConnection; workflowCode: string }> {
  const { description: workflowCode, ...workflowCodeOption } = workflowCodeOptions(config.env, options.workflowBundle, config.tracing.otlpTracesUrl !== null);
  const connection = await NativeConnection.connect(config.temporal.connection);
  app.get(LabReportStarter).start();
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: options.taskQueue ?? config.labReports.taskQueue,
    activities: createLabReportActivities(app.get(LabReportProcessingService)),
    maxConcurrentActivityTaskExecutions: config.labReports.concurrency,
    dataConverter: labflowDataConverter(config),
    ...withTracing(workflowCodeOption),
  });
  return { worker, connection, workflowCode };
}
