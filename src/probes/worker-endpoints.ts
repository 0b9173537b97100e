import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { scrapeAllowed } from '../common/metrics/registry';
import { describeFailures, type Readiness } from './readiness';

export interface WorkerEndpointsOptions {
  readiness: Readiness;
  /** The Prometheus text of /metrics; null when METRICS_ENABLED is off (then /metrics is 404). */
  metrics: (() => Promise<string>) | null;
  metricsToken: string | null;
  host: string;
  /** 0: any free port (tests). */
  port: number;
}

export interface WorkerEndpoints {
  port: number;
  close(): Promise<void>;
}

/**
 * The worker's small HTTP port (WORKER_HEALTH_PORT): the same probes as the HTTP apps
 * (`/health/live`, `/health/ready`, `/health`) and `/metrics`. Plain node:http: the worker has no
 * HTTP app, and four GET routes do not need one.
 */
export async function serveWorkerEndpoints(options: WorkerEndpointsOptions): Promise<WorkerEndpoints> {
  const server = createServer((request, response) => {
    answer(options, request, response).catch(() => send(response, 500, { detail: 'Internal server error.' }));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port, options.host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(options: WorkerEndpointsOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? '/').split('?')[0].replace(/\/+$/, '') || '/';
  if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, 405, { detail: 'Method not allowed.' });
  switch (path) {
    case '/health/live':
      return send(response, 200, { status: 'ok' });
    case '/health':
    case '/health/ready': {
      const report = await options.readiness.report();
      return report.status === 'ok' ? send(response, 200, report) : send(response, 503, { detail: describeFailures(report), ...report });
    }
    case '/metrics':
      if (!options.metrics) break;
      if (!scrapeAllowed(options.metricsToken, request.headers.authorization)) {
        return send(response, 401, { detail: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.' });
      }
      response.writeHead(200, { 'content-type': Registry.PROMETHEUS_CONTENT_TYPE });
      response.end(await options.metrics());
      return;
  }
  send(response, 404, { detail: 'Not Found' });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return void response.end();
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}
