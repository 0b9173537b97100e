import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * The HTTP plumbing the stand-ins for real data providers share (fake-oura.ts, fake-dexcom.ts):
 * a server on a free loopback port, form bodies, JSON answers, redirects, opaque tokens and
 * deterministic numbers. What each provider says and refuses stays in its own stand-in.
 */

/** A server on a free loopback port; `handle` answers its requests. */
export async function listenLocally(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.on('request', (req, res) => void handle(req, res));
  return server;
}

export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive sockets (fetch keeps them) would hold close() open until they time out.
  server.closeAllConnections();
  await closed;
}

/** The request's form body; `refuse()` (the provider's own error) when it is not a form. */
export async function readForm(req: IncomingMessage, refuse: () => Error): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (!(req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) throw refuse();
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location });
  res.end();
}

export function withQuery(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

export function opaqueToken(): string {
  return randomBytes(24).toString('base64url');
}

/** A number in [0, 1) that depends only on `parts` (FNV-1a, then a murmur3 finaliser): the stand-ins' data is the same on every run. */
export function unit(...parts: Array<string | number>): number {
  let h = 2166136261;
  const text = parts.join('|');
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
}
