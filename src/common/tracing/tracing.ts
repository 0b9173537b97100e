import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../../config/config';

/**
 * OpenTelemetry tracing of one labflow process, exported by OTLP/HTTP (JSON) when an endpoint
 * is configured (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). Without
 * one nothing is registered: the OpenTelemetry API stays the no-op it is by default, the HTTP
 * hooks and the Temporal client/activity interceptors are not installed, and the outbox stores
 * no trace context.
 */

export interface Tracing {
  readonly serviceName: string;
  readonly resource: Resource;
  /** Where the spans the workflow sandbox reports (through a sink) go too. */
  readonly spanProcessor: SpanProcessor;
  /** Exports every ended span now. */
  flush(): Promise<void>;
  /** Flushes, then unregisters everything (the API is a no-op again). */
  shutdown(): Promise<void>;
}

let active: Tracing | null = null;

/** The tracing this process started, or null when it is off. */
export function activeTracing(): Tracing | null {
  return active;
}

/**
 * Starts tracing for this process under `serviceName` (labflow-api, labflow-management,
 * labflow-worker) when the configuration names an OTLP endpoint; returns null otherwise. Call it
 * before the apps and Temporal connections are made: they install their hooks and interceptors
 * only when tracing is on.
 */
export function startTracing(serviceName: string, config: TracingConfig): Tracing | null {
  if (!config.otlpTracesUrl) return null;
  if (active) throw new Error(`tracing is already on in this process (${active.serviceName})`);
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName ?? serviceName });
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: config.otlpTracesUrl }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Global tracer provider, AsyncLocalStorage context manager, W3C traceparent propagation.
  provider.register();
  const tracing: Tracing = {
    serviceName: config.serviceName ?? serviceName,
    resource,
    spanProcessor,
    flush: () => provider.forceFlush(),
    async shutdown() {
      if (active === tracing) active = null;
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  active = tracing;
  return tracing;
}
