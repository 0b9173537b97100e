import { Agent, request as httpRequest } from 'node:http';

/**
 * A raw HTTP/1.1 client for malformed-request tests. Unlike fetch it sends any method token,
 * any latin-1 header value, any body bytes with any (or no) content-type, and keeps
 * connections alive so thousands of requests on loopback stay fast.
 */
export interface RawRequest {
  method: string;
  /** Path and query exactly as sent on the request line (already encoded, or deliberately not). */
  path: string;
  /** An array value sends the header once per element. */
  headers: Record<string, string | string[]>;
  body?: Buffer | string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  json: unknown;
}

export class RawHttpClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });
  /** How many requests were re-sent because their reused socket had been closed. */
  retries = 0;

  constructor(private readonly baseUrl: string) {}

  /**
   * Sends `req`. A keep-alive socket the server closed just as it was reused fails with
   * ECONNRESET / "socket hang up" before anything was answered: that one attempt is retried
   * on a fresh connection (as Node's docs advise); any other failure is returned as is.
   */
  async send(req: RawRequest, timeoutMs = 15_000): Promise<RawResponse> {
    try {
      return await this.attempt(req, timeoutMs, this.agent);
    } catch (error) {
      if (!(error as { reusedSocket?: boolean }).reusedSocket) throw error;
      this.retries += 1;
      return this.attempt(req, timeoutMs, false);
    }
  }

  private attempt(req: RawRequest, timeoutMs: number, agent: Agent | false): Promise<RawResponse> {
    const url = new URL(this.baseUrl);
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string | string[] | number> = { ...req.headers };
    if (body !== undefined) headers['content-length'] = body.length;
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method: req.method,
          path: req.path,
          headers,
          timeout: timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = text ? JSON.parse(text) : undefined;
            } catch {
              json = undefined;
            }
            resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
          });
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error(`no response within ${timeoutMs} ms`)));
      outgoing.on('error', (error: Error & { code?: string }) => {
        const stale = outgoing.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        reject(Object.assign(error, { reusedSocket: stale }));
      });
      outgoing.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** A short, printable description of a request for assertion messages. */
export function describeRequest(req: RawRequest, max = 400): string {
  const clip = (value: string) => (value.length > max ? `${value.slice(0, max)}… (${value.length} chars)` : value);
  const headers = Object.entries(req.headers)
    .map(([name, value]) => `${name}: ${JSON.stringify(Array.isArray(value) ? value.map(clip) : clip(value))}`)
    .join(', ');
  let body = '(none)';
  if (req.body !== undefined) {
    const text = Buffer.isBuffer(req.body) ? req.body.toString('latin1') : req.body;
    const bytes = Buffer.isBuffer(req.body) ? req.body.length : Buffer.byteLength(req.body);
    body = `${JSON.stringify(clip(text))} (${bytes} bytes)`;
  }
  return `${req.method} ${clip(req.path)} {${headers}} body=${body}`;
}
