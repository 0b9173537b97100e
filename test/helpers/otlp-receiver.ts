import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP exporter sent it. */
export interface ReceivedSpan {
  service: string;
  name: string;
  /** SpanKind as OTLP numbers it: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  attributes: Record<string, unknown>;
}

/**
 * A tiny OTLP/HTTP trace receiver: a node http server accepting POST /v1/traces in the JSON
 * encoding @opentelemetry/exporter-trace-otlp-http sends (ids as hex, or base64 per the protobuf
 * JSON mapping), keeping every span. Anything else (protobuf) answers 415, so a change of
 * encoding fails loudly instead of losing spans.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every export as it arrived (JSON text): span events, status messages and all (a test greps them). */
  readonly exports: string[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        if (!String(request.headers['content-type']).startsWith('application/json')) {
          response.writeHead(415).end();
          return;
        }
        const text = Buffer.concat(chunks).toString('utf8');
        receiver.exports.push(text);
        receiver.take(JSON.parse(text));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  inTrace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private take(body: OtlpTraces): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            name: span.name,
            kind: span.kind,
            traceId: hexId(span.traceId),
            spanId: hexId(span.spanId),
            parentSpanId: span.parentSpanId ? hexId(span.parentSpanId) : null,
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
  }
}

interface OtlpKeyValue {
  key: string;
  value: { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
}
interface OtlpTraces {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{ spans?: Array<{ name: string; kind: number; traceId: string; spanId: string; parentSpanId?: string; attributes?: OtlpKeyValue[] }> }>;
  }>;
}

function attributesOf(list: OtlpKeyValue[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue]));
}

/** Trace and span ids as lowercase hex, whether the JSON carried hex or base64. */
function hexId(id: string): string {
  return /^[0-9a-f]+$/i.test(id) && (id.length === 32 || id.length === 16) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}
