import { Hl7Message } from '@medplum/core';
import { Hl7Connection } from '@medplum/hl7';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import type { Hl7Tls } from './hl7.entities';

/** The lab could not be reached, or did not answer in time: a retry may succeed. */
export class Hl7TransportError extends Error {}

export interface MllpTarget {
  host: string;
  port: number;
  tls: Hl7Tls | null;
}

/**
 * Sends one message to a lab and waits for its ACK, on a connection of its own. @medplum/hl7's
 * Hl7Client connects over plain TCP only; its Hl7Connection (framing, ACK matching by MSA-2) works
 * over any socket, so labflow opens the socket itself — TLS with the lab's CA and labflow's
 * client certificate when the interface has them.
 */
export async function sendAndAwaitAck(target: MllpTarget, text: string, options: { connectTimeoutMs: number; ackTimeoutMs: number }): Promise<Hl7Message> {
  const socket = await connect(target, options.connectTimeoutMs);
  const connection = new Hl7Connection(socket, 'utf-8');
  // Errors also reach the pending sendAndWait (a close rejects it); the listener keeps them from throwing.
  connection.addEventListener('error', () => undefined);
  const closed = new Promise<never>((_, reject) =>
    socket.once('close', () => reject(new Hl7TransportError(`The lab at ${target.host}:${target.port} closed the connection before its ACK.`))),
  );
  closed.catch(() => undefined);
  try {
    return await Promise.race([connection.sendAndWait(Hl7Message.parse(text), { timeoutMs: options.ackTimeoutMs }), closed]);
  } catch (error) {
    if (error instanceof Hl7TransportError) throw error;
    throw new Hl7TransportError(`No ACK from the lab at ${target.host}:${target.port}: ${(error as Error).message}`);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

function connect(target: MllpTarget, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const settings = target.tls;
    const socket = settings
      ? tls.connect({
          host: target.host,
          port: target.port,
          servername: settings.serverName ?? (net.isIP(target.host) ? undefined : target.host),
          ...(settings.caFile ? { ca: readFileSync(settings.caFile) } : {}),
          ...(settings.certFile && settings.keyFile ? { cert: readFileSync(settings.certFile), key: readFileSync(settings.keyFile) } : {}),
        })
      : net.connect({ host: target.host, port: target.port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Hl7TransportError(`Connecting to the lab at ${target.host}:${target.port} timed out after ${timeoutMs} ms.`));
    }, timeoutMs);
    socket.once(settings ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(new Hl7TransportError(`Cannot reach the lab at ${target.host}:${target.port}: ${error.message}`));
    });
  });
}
