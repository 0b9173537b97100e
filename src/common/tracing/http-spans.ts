import { context, type Context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { redactedUrlParts } from '../redaction';

/**
 * One SERVER span per HTTP request, named after the route pattern (`POST /v3/order`, never the
 * URL: paths carry ids), child of an incoming `traceparent`. Its `url.path` and `url.query` say
 * which resource was asked for, with credentials and names redacted as in the logs (redaction.ts). The
 * handler runs inside it, so what the request causes (the workflow start, the outbox rows) joins
 * the request's trace. Installed only when tracing is on.
 */
export function traceHttpRequests(fastify: FastifyInstance): void {
  const tracer = trace.getTracer('labflow-http');
  const spans = new WeakMap<FastifyRequest, { span: Span; context: Context }>();

  fastify.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method, ...(route ? { 'http.route': route } : {}), ...urlAttributes(request.url) },
      },
      parent,
    );
    spans.set(request, { span, context: trace.setSpan(parent, span) });
    done();
  });
  // After body parsing (which loses the async context), right before the handler.
  fastify.addHook('preHandler', (request, _reply, done) => {
    const traced = spans.get(request);
    if (traced) context.with(traced.context, done);
    else done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const traced = spans.get(request);
    spans.delete(request);
    if (traced) {
      traced.span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) traced.span.setStatus({ code: SpanStatusCode.ERROR });
      traced.span.end();
    }
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    const traced = spans.get(request);
    spans.delete(request);
    traced?.span.setStatus({ code: SpanStatusCode.ERROR, message: 'request aborted' });
    traced?.span.end();
    done();
  });
}

/** OpenTelemetry's `url.path` and `url.query` of a server span, redacted. */
function urlAttributes(url: string): Record<string, string> {
  const { path, query } = redactedUrlParts(url);
  return query === undefined ? { 'url.path': path } : { 'url.path': path, 'url.query': query };
}
