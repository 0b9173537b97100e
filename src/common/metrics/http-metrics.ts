import type { FastifyRequest } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The label sets of one route and method, made on its first request: the duration's, and the count's by status code. */
interface Series {
  duration: { method: string; route: string };
  byStatus: Map<number, { method: string; route: string; status_code: string }>;
}

/** Records one answered request: its route, method, status code and milliseconds. */
export type RecordRequest = (request: FastifyRequest, statusCode: number, milliseconds: number) => void;

/**
 * Counts and times every answered request by route pattern (`/v3/order/:order_id`, never the raw
 * URL: ids would make a series per order), method and status code. Requests no route matched
 * count under `route="unmatched"`, so a scanner cannot add series either. The caller records
 * each answer (http-app.ts, in its one onResponse hook); the label objects are made once per
 * route, method and status, not per request.
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
  const routes = new Map<string, Map<string, Series>>();
  const seriesOf = (route: string, method: string): Series => {
    let methods = routes.get(route);
    if (!methods) routes.set(route, (methods = new Map()));
    let series = methods.get(method);
    if (!series) methods.set(method, (series = { duration: { method, route }, byStatus: new Map() }));
    return series;
  };
  return (request, statusCode, milliseconds) => {
    const series = seriesOf(request.routeOptions.url ?? 'unmatched', METHODS.has(request.method) ? request.method : 'OTHER');
    let counted = series.byStatus.get(statusCode);
    if (!counted) series.byStatus.set(statusCode, (counted = { ...series.duration, status_code: String(statusCode) }));
    requests.inc(counted);
    duration.observe(series.duration, milliseconds / 1000);
  };
}
