import { createServer } from 'node:net';

/** A loopback port nothing listens on right now, for a server that cannot report the port it bound. */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('could not find a free loopback port');
  return address.port;
}
