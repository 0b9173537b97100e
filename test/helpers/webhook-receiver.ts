import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';

/** One request the receiver got. */
export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** webhook-id header (= the event id). */
  webhookId: string;
  /** The parsed envelope, when the body is JSON. */
  json: any;
  /** Whether the signature verified with both `svix` (svix-* headers) and `standardwebhooks` (webhook-* headers). */
  verified: boolean;
  verifyError: string | null;
  /** What the receiver answered (null: it left the request hanging). */
  answeredStatus: number | null;
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/** Decides the answer; `nth` counts requests to this path, from 1. */
export type Responder = (request: ReceivedRequest, nth: number) => Answer;

/**
 * A webhook receiver for tests: a node http server on 127.0.0.1:<random port> that records every
 * request, verifies its signature with the published `svix` and `standardwebhooks` packages
 * (register each path's secret with `secret()`), and answers as scripted per path (200 unless
 * told otherwise; `'hang'` never answers, until `releaseHanging` or `close`).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly secrets = new Map<string, string[]>();
  private readonly responders = new Map<string, Responder>();
  private readonly counts = new Map<string, number>();
  private readonly hanging = new Set<ServerResponse>();
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (req, res) => receiver.handle(req, res));
    server.on('connection', (socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Secrets a path's deliveries must be signed with (every one must verify). */
  secret(path: string, ...secrets: string[]): this {
    this.secrets.set(path, secrets);
    return this;
  }

  /** Scripts a path's answers. */
  respond(path: string, responder: Responder): this {
    this.responders.set(path, responder);
    return this;
  }

  forPath(path: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Requests answered with a 2xx, for a path. */
  accepted(path: string): ReceivedRequest[] {
    return this.forPath(path).filter((request) => request.answeredStatus !== null && request.answeredStatus < 300);
  }

  /** Requests currently left hanging. */
  get hangingCount(): number {
    return this.hanging.size;
  }

  /** Ends every hanging request by dropping its connection. */
  releaseHanging(): void {
    for (const res of this.hanging) res.socket?.destroy();
    this.hanging.clear();
  }

  async close(): Promise<void> {
    this.releaseHanging();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : (value ?? '');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        // not JSON
      }
      const request: ReceivedRequest = {
        path,
        headers,
        body,
        webhookId: headers['webhook-id'] ?? '',
        json,
        ...this.verify(path, body, headers),
        answeredStatus: null,
      };
      this.requests.push(request);
      const nth = (this.counts.get(path) ?? 0) + 1;
      this.counts.set(path, nth);
      const responder: Responder = this.responders.get(path) ?? (() => ({ status: 200, body: 'ok' }));
      const answer = responder(request, nth);
      if (answer === 'hang') {
        this.hanging.add(res);
        res.on('close', () => this.hanging.delete(res));
        return;
      }
      request.answeredStatus = answer.status;
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? '');
    });
  }

  private verify(path: string, body: string, headers: Record<string, string>): { verified: boolean; verifyError: string | null } {
    const secrets = this.secrets.get(path);
    if (!secrets) return { verified: false, verifyError: 'no secret registered for this path' };
    try {
      for (const secret of secrets) {
        new SvixWebhook(secret).verify(body, {
          'svix-id': headers['svix-id'],
          'svix-timestamp': headers['svix-timestamp'],
          'svix-signature': headers['svix-signature'],
        });
        new StandardWebhook(secret).verify(body, {
          'webhook-id': headers['webhook-id'],
          'webhook-timestamp': headers['webhook-timestamp'],
          'webhook-signature': headers['webhook-signature'],
        });
      }
      return { verified: true, verifyError: null };
    } catch (error) {
      return { verified: false, verifyError: error instanceof Error ? error.message : String(error) };
    }
  }
}

/**
 * Polls `check` until it returns a truthy value (returned) or `timeoutMs` passes (throws with
 * `describe()`'s account of the last state). No timing is asserted: the deadline is generous.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; describe?: () => unknown } = {},
): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, false | null | undefined | 0 | ''>;
    if (Date.now() > deadline) {
      const state = options.describe ? await options.describe() : undefined;
      throw new Error(`waitFor: condition not met before the deadline${state === undefined ? '' : `; last state: ${JSON.stringify(state)}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}
