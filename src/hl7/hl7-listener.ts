import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { buildAck } from './ack';
import type { Hl7InboundService } from './hl7-inbound.service';
import { hl7Metrics } from './hl7-metrics';
import { frame, MllpFramer } from './mllp-framer';

export interface Hl7ListenerOptions {
  port: number;
  host: string;
  /** Frames larger than this are refused (AR) unread. */
  maxMessageBytes: number;
  /** A frame begun and not ended within this long is refused and the connection closed. */
  frameTimeoutMs: number;
  /** TLS: the listener's certificate and key; with a CA, labs must present a certificate it signed. */
  tls: { certFile: string; keyFile: string; caFile: string | null } | null;
  logger: { warn(message: string): void };
}

export interface Hl7Listener {
  port: number;
  close(): Promise<void>;
}

/**
 * labflow's MLLP listener (worker role `hl7`): TCP or TLS, one message at a time per connection,
 * each answered on that connection once Hl7InboundService has committed it. @medplum/hl7's
 * Hl7Server is plain TCP only and frames on read boundaries (see MllpFramer), so the listener
 * owns its sockets and uses the library's message model (Hl7Message) through the service.
 */
export async function startHl7Listener(inbound: Hl7InboundService, options: Hl7ListenerOptions): Promise<Hl7Listener> {
  const sockets = new Set<net.Socket>();
  const onConnection = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const framer = new MllpFramer(options.maxMessageBytes);
    let queue = Promise.resolve();
    let timer: NodeJS.Timeout | null = null;
    const send = (ack: string) => {
      if (!socket.destroyed) socket.write(frame(ack));
    };
    const armTimer = () => {
      if (timer) clearTimeout(timer);
      timer = framer.pending
        ? setTimeout(() => {
            hl7Metrics.message('in', '', 'AR');
            send(refusal(`Truncated frame: no end block (FS CR) within ${options.frameTimeoutMs} ms.`, '100'));
            socket.end();
          }, options.frameTimeoutMs)
        : null;
    };
    socket.on('data', (chunk: Buffer) => {
      for (const event of framer.push(chunk)) {
        if (event.kind === 'garbage') {
          options.logger.warn(`hl7 listener: ${event.bytes} bytes outside an MLLP frame skipped`);
          continue;
        }
        queue = queue.then(async () => {
          if (event.kind === 'oversized') {
            hl7Metrics.message('in', '', 'AR');
            send(refusal(`Message of ${event.size} bytes exceeds the limit of ${options.maxMessageBytes} bytes.`, '100'));
            return;
          }
          try {
            send((await inbound.receive(event.bytes)).ack);
          } catch (error) {
            // Nothing was committed for a message whose storing failed: the lab may send it again.
            options.logger.warn(`hl7 listener: message not taken: ${(error as Error).message}`);
            send(refusal(`labflow could not take the message now (${(error as Error).message}); resend it.`, '207', 'AE'));
          }
        });
      }
      armTimer();
    });
    socket.on('close', () => {
      if (timer) clearTimeout(timer);
    });
  };
  const server = options.tls
    ? tls.createServer(
        {
          cert: readFileSync(options.tls.certFile),
          key: readFileSync(options.tls.keyFile),
          ...(options.tls.caFile ? { ca: readFileSync(options.tls.caFile), requestCert: true, rejectUnauthorized: true } : {}),
        },
        onConnection,
      )
    : net.createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function refusal(text: string, errorCode: string, ackCode: 'AE' | 'AR' = 'AR'): string {
  return buildAck({ to: null, controlId: null, ackCode, text, errorCode, ownControlId: String(Date.now()), at: new Date() });
}
