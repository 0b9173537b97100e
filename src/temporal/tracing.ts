import { createTraceState } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  type OpenTelemetrySinks,
  OpenTelemetryWorkflowClientInterceptor,
  type SerializableSpan,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import { activeTracing } from '../common/tracing/tracing';

/**
 * Temporal's OpenTelemetry interceptors (@temporalio/interceptors-opentelemetry) wired to the
 * process's tracing: the client's carries the caller's context (an HTTP request) into the
 * workflow start's headers; the workflow interceptors (bundled with the workflows, see
 * workflow-bundle.ts) trace the run and pass the context on to activities; the activity
 * interceptor runs each activity in a span under it. Spans made in the workflow sandbox leave it
 * through the `exporter` sink.
 */

/** The workflow-side interceptor module (every bundle of labflow's workflows includes it). */
export const WORKFLOW_TRACING_MODULE = require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/** For every Temporal Client: the workflow-start span and its context in the headers (tracing on). */
export function tracingClientInterceptors(): WorkflowClientInterceptor[] {
  return activeTracing() ? [new OpenTelemetryWorkflowClientInterceptor()] : [];
}

/** For every worker: each activity in a span under the workflow's (tracing on). */
export function tracingActivityInterceptors(): ActivityInterceptorsFactory[] {
  if (!activeTracing()) return [];
  return [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })];
}

/**
 * The sink the bundled workflow interceptors report their spans to. Every worker running the
 * bundle registers it (an unregistered sink is logged as an error on each call); with tracing
 * off it drops them.
 */
export function tracingWorkflowSinks(): InjectedSinks<OpenTelemetrySinks> {
  return {
    exporter: {
      export: {
        fn: (info, spans) => {
          const tracing = activeTracing();
          if (!tracing) return;
          // Only the workflow's identity: the whole WorkflowInfo (memo, search attributes, last
          // failure) has no place in a trace backend.
          const identity = { workflowId: info.workflowId, runId: info.runId, workflowType: info.workflowType, taskQueue: info.taskQueue };
          for (const span of spans) tracing.spanProcessor.onEnd(readableSpan(span, { ...span.attributes, ...identity }, tracing.resource));
        },
        callDuringReplay: false,
      },
    },
  };
}

/**
 * A span from the workflow sandbox as the OpenTelemetry 2 SDK exports it. The interceptors'
 * own converter (makeWorkflowExporter) builds an OpenTelemetry 1 span (parentSpanId,
 * instrumentationLibrary), whose parent and scope the 2.x OTLP exporter would not find.
 */
function readableSpan(span: SerializableSpan, attributes: ReadableSpan['attributes'], resource: ReadableSpan['resource']): ReadableSpan {
  const { traceState, ...spanContext } = span.spanContext;
  const context = { ...spanContext, ...(traceState ? { traceState: createTraceState(traceState) } : {}) };
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => context,
    parentSpanContext: span.parentSpanId ? { traceId: context.traceId, spanId: span.parentSpanId, traceFlags: context.traceFlags } : undefined,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes,
    links: span.links,
    events: span.events,
    duration: span.duration,
    ended: span.ended,
    resource,
    instrumentationScope: span.instrumentationLibrary,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}
