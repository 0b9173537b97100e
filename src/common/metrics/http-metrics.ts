import type { FastifyRequest } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Records one answered request: its route, method, status code and milliseconds. */
export type RecordRequest = (request: FastifyRequest, statusCode: number, milliseconds: number) => void;

/**
 * Counts and times every answered request by route pattern (`/v3/order/:order_id`, never the raw
 * URL: ids would make a series per order), method and status code. Requests no route matched
 * count under `route="unmatched"`, so a scanner cannot add series either. The caller records
 * each answer (http-app.ts, in its one onResponse hook). Label objects made once per route and
 * status instead of per request were measured no faster: prom-client hashes the labels per call.
 */
export function httpRequestMetrics(registry: Registry): RecordRequest {
  const requests = new Counter({
    name: 'labflow_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'labflow_http_request_duration_seconds',
    help: 'Time from request received to response sent, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (request, statusCode, milliseconds) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const method = METHODS.has(request.method) ? request.method : 'OTHER';
    requests.inc({ method, route, status_code: String(statusCode) });
    duration.observe({ method, route }, milliseconds / 1000);
  };
}
