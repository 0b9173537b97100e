import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Runtime } from '@temporalio/worker';
import { DataSource } from 'typeorm';
import { type SandboxCallbackProcessor, startSandboxCallbackProcessor } from './adapters/sandbox-callbacks/sandbox-callback.processor';
import { PhiCipher } from './common/crypto';
import { MetricsRegistry } from './common/metrics/registry';
import { createLogger } from './common/logger';
import { useProcessLogger, withProcessLogger } from './common/logging.module';
import { runProcess } from './common/process';
import { startTracing } from './common/tracing/tracing';
import { type LabflowConfig, loadConfig } from './config/config';
import { RetentionSweeper, startRetentionSweeps } from './retention/retention-sweeper';
import { type EventProcessing, startEventProcessing } from './events/event-processing';
import { WorkerModule } from './worker.module';
import { createLabflowWorker, createLabReportWorker, type LabflowWorkerOptions } from './temporal-worker';
import { Readiness } from './probes/readiness';
import { installTemporalRuntime } from './temporal/runtime';
import { processWorkflowBundle } from './temporal/workflow-bundle';
import { startWorkerObservability, type WorkerObservability } from './worker-observability';
import { ContinuousQueryRunner, startContinuousQueries } from './health-data/continuous-queries/continuous-query-runner';
import { Hl7InboundDelivery } from './hl7/hl7-inbound-delivery';
import { Hl7InboundService } from './hl7/hl7-inbound.service';
import { type Hl7Listener, startHl7Listener } from './hl7/hl7-listener';
import { type SandboxHl7Lab, startSandboxHl7Lab } from './adapters/lab/sandbox-hl7-lab';
import { SandboxHl7LabOutboxRepository } from './adapters/lab/sandbox-hl7-lab-outbox.repository';
import { OrderSandboxLabCatalog } from './orders/order-sandbox-lab-catalog';

/**
 * The worker process: by default (WORKER_ROLES=temporal,relay,delivery,sandbox,retention,lab-reports,continuous-queries) the
 * Temporal worker, the outbox relay, the webhook/event-destination delivery worker, the sender of
 * sandbox partner callbacks (to PUBLIC_API_URL) and the retention sweeper (deletes expired events
 * and idempotency keys), the lab report worker (parsing workflows and OCR on LAB_REPORT_TASK_QUEUE)
 * and the evaluator of continuous queries;
 * a subset scales them apart. SIGINT/SIGTERM
 * (handled by the Temporal runtime when it runs) make it stop polling and
 * drain running activities and deliveries; then connections close and the process exits.
 */
runProcess('worker', async () => {
  const config = loadConfig();
  const tracing = startTracing('labflow-worker', config.tracing);
  const roles = new Set(config.workerRoles);
  const logger = createLogger(config, { service: 'worker' });
  // Before any Temporal connection: the runtime's telemetry is fixed once per process, and the
  // SDK's, the workflows' and the activities' logs go to the process logger.
  const runtime = await installTemporalRuntime({
    logger,
    prometheusPort: roles.has('temporal') && config.metrics.enabled ? config.metrics.temporalPort : undefined,
  });
  const app = await NestFactory.createApplicationContext(withProcessLogger(WorkerModule.forRoot(config), logger), { bufferLogs: true });
  useProcessLogger(app);
  let events: EventProcessing | null = null;
  let sandbox: SandboxCallbackProcessor | null = null;
  let retention: { stop(): Promise<void> } | null = null;
  let observability: WorkerObservability | null = null;
  let labReports: { stopped: Promise<void> } | null = null;
  let continuousQueries: { stop(): Promise<void> } | null = null;
  let hl7: Hl7Listener | null = null;
  let hl7Sweep: (() => Promise<void>) | null = null;
  let hl7HandOff: (() => Promise<void>) | null = null;
  let sandboxHl7Lab: SandboxHl7Lab | null = null;
  try {
    observability = await startWorkerObservability(app, config, {
      roles: config.workerRoles,
      readiness: app.get(Readiness),
      metrics: app.get(MetricsRegistry),
      temporalMetricsUrl: runtime.prometheusUrl,
    });
    logger.info(`worker health and metrics on http://${config.api.host}:${observability.port}`);
    if (roles.has('retention') && config.retention.sweepIntervalMs > 0) {
      const sweeper = new RetentionSweeper(app.get(DataSource), {
        eventRetentionMs: config.retention.eventRetentionMs,
        orderIdempotencyKeyTtlMs: config.orders.idempotencyKeyTtlMs,
        appointmentIdempotencyKeyTtlMs: config.appointments.idempotencyKeyTtlMs,
        batchSize: 1000,
        healthDataRetentionMs: config.healthData.retentionMs,
        linkBulkOpRetentionMs: config.retention.linkBulkOpRetentionMs,
      });
      retention = startRetentionSweeps(sweeper, config.retention.sweepIntervalMs, {
        log: (message) => logger.info(message),
        warn: (message) => logger.warn(message),
      });
      logger.info(`retention sweeps every ${config.retention.sweepIntervalMs / 1000}s`);
    }
    if (roles.has('sandbox') && config.sandboxCallbacks.enabled && config.orders.partnerWebhookSecret) {
      sandbox = startSandboxCallbackProcessor({
        redisUrl: config.redisUrl,
        queueName: config.sandboxCallbacks.queueName,
        // Where the /test partners call too (SANDBOX_PARTNERS_API_URL, default PUBLIC_API_URL).
        baseUrl: config.sandboxCallbacks.partnersApiUrl,
        secret: config.orders.partnerWebhookSecret,
        logger,
      });
      logger.info(`sandbox partner callbacks on queue "${config.sandboxCallbacks.queueName}" to ${config.sandboxCallbacks.partnersApiUrl}`);
    }
    if (roles.has('relay') || roles.has('delivery')) {
      events = startEventProcessing(
        { db: app.get(DataSource), cipher: app.get(PhiCipher), config },
        { relay: roles.has('relay'), delivery: roles.has('delivery'), logger },
      );
      const running = [roles.has('relay') && 'outbox relay', roles.has('delivery') && 'delivery worker'].filter(Boolean);
      logger.info(`${running.join(' and ')} on queue "${config.events.queueName}"`);
    }
    if (roles.has('continuous-queries')) {
      const { pollIntervalMs } = config.healthData.continuousQueries;
      continuousQueries = startContinuousQueries(app.get(ContinuousQueryRunner), pollIntervalMs, (message) => logger.warn(message));
      logger.info(`continuous queries evaluated every ${pollIntervalMs / 1000}s`);
    }
    if (roles.has('hl7') || roles.has('hl7-listener')) {
      // `hl7-listener` without `hl7`: the listener only stores and ACKs; a process of role hl7-handoff hands over.
      if (!roles.has('hl7')) app.get(Hl7InboundService).handOverElsewhere();
      hl7 = await startHl7Listener(app.get(Hl7InboundService), {
        ...config.hl7,
        port: config.hl7.listenerPort,
        host: config.hl7.listenerHost,
        tls: config.hl7.listenerTls,
        logger,
      });
      if (roles.has('hl7')) hl7Sweep = app.get(Hl7InboundDelivery).startSweeping(config.hl7.redeliverAfterMs);
      logger.info(`HL7 MLLP listener on ${config.hl7.listenerHost}:${hl7.port}${config.hl7.listenerTls ? ' (TLS)' : ''}`);
    }
    if (roles.has('hl7-handoff')) {
      hl7HandOff = app.get(Hl7InboundDelivery).startHandingOff(config.hl7.handoffPollMs, config.hl7.redeliverAfterMs);
      logger.info(`HL7 hand-off: stored messages to their orders, looked for every ${config.hl7.handoffPollMs} ms`);
    }
    if (roles.has('sandbox-hl7-lab')) {
      const { sandboxLab } = config.hl7;
      sandboxHl7Lab = await startSandboxHl7Lab({
        port: sandboxLab.port,
        host: config.hl7.listenerHost,
        labflow: sandboxLab.resultsTo,
        resultDelayMs: config.sandboxCallbacks.labResultDelayMs,
        catalog: app.get(OrderSandboxLabCatalog),
        outbox: new SandboxHl7LabOutboxRepository(app.get(DataSource), app.get(PhiCipher)),
        logger,
      });
      logger.info(`sandbox HL7 lab on port ${sandboxHl7Lab.port}, reporting to ${sandboxLab.resultsTo.host}:${sandboxLab.resultsTo.port}`);
    }
    // One bundle of workflows/ for both Temporal workers (none in production: the prebuilt one).
    const workflowBundle =
      roles.has('temporal') || roles.has('lab-reports')
        ? await processWorkflowBundle(config.env, config.tracing.otlpTracesUrl !== null, Runtime.instance().logger, config.temporal.workflowBundlePath)
        : undefined;
    // Lab reports run beside the order worker (both stop on SIGINT/SIGTERM), awaited below.
    if (roles.has('lab-reports')) {
      labReports = await runLabReportWorker(app, config, observability, workflowBundle);
      logger.info(`lab report worker polling task queue "${config.labReports.taskQueue}"`);
    }
    if (roles.has('temporal')) {
      const { worker, connection, workflowCode } = await createLabflowWorker(app, config, { workflowBundle });
      observability.watchTemporalWorker(worker);
      logger.info(
        `worker polling task queue "${config.temporal.taskQueue}" in namespace "${config.temporal.namespace}" at ${config.temporal.address}, workflows from ${workflowCode}`,
      );
      try {
        await worker.run();
      } finally {
        await connection.close();
      }
    } else {
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
    }
  } finally {
    await labReports?.stopped;
    await retention?.stop();
    await continuousQueries?.stop();
    await hl7?.close();
    await hl7Sweep?.();
    await hl7HandOff?.();
    // What was ACKed is handed over before the process ends (else the next sweep does it).
    if (hl7 || hl7HandOff) await app.get(Hl7InboundDelivery).idle();
    await sandboxHl7Lab?.close();
    await sandbox?.stop();
    await events?.stop();
    await observability?.close();
    await app.close();
    await tracing?.shutdown();
    await runtime.shutdown();
    logger.info('worker stopped');
  }
});

/** Starts the lab report worker; `stopped` settles once it has stopped and disconnected. */
async function runLabReportWorker(
  app: INestApplicationContext,
  config: LabflowConfig,
  observability: WorkerObservability,
  workflowBundle: LabflowWorkerOptions['workflowBundle'],
): Promise<{ stopped: Promise<void> }> {
  const { worker, connection } = await createLabReportWorker(app, config, { workflowBundle });
  observability.watchTemporalWorker(worker, 'lab_report_worker');
  return { stopped: worker.run().finally(() => connection.close()) };
}
