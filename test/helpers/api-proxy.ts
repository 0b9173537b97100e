import { createServer, type IncomingMessage, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A proxy on a free port in front of `target` (an API under test), for seeing or spoiling what
 * partners send over the wire. Each request is forwarded; when its answer comes, `onAnswer` says
 * whether the client gets it (`forward`) or the connection is cut as if the answer were lost (`drop`).
 */
export async function startApiProxy(
  target: string,
  onAnswer: (request: IncomingMessage, answer: IncomingMessage) => 'forward' | 'drop',
): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((incoming, outgoing) => {
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        if (onAnswer(incoming, answer) === 'drop') {
          answer.resume();
          outgoing.socket?.destroy();
          return;
        }
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
