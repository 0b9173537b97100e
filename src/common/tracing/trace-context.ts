import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { activeTracing } from './tracing';

/**
 * Trace context across labflow's asynchronous hops (outbox row → relay → BullMQ job → delivery),
 * as a W3C `traceparent` string.
 */

const tracer = () => trace.getTracer('labflow');

/** The traceparent of the active span (a request, an activity), or null (none, or tracing off). */
export function currentTraceParent(): string | null {
  if (!activeTracing()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * Runs `fn` in a span whose parent is `traceParent` (a root span without one); just runs it when
 * tracing is off.
 */
export async function inSpanUnder<T>(
  traceParent: string | null | undefined,
  name: string,
  options: { kind?: SpanKind; attributes?: Record<string, string | number | boolean> },
  fn: () => Promise<T>,
): Promise<T> {
  if (!activeTracing()) return fn();
  const parent = traceParent ? propagation.extract(ROOT_CONTEXT, { traceparent: traceParent }) : ROOT_CONTEXT;
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent, async (span) => {
    try {
      return await fn();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
