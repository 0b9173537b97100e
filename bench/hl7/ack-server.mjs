/**
 * The floor of bench:hl7: an MLLP server that only ACKs, built from labflow's own pieces (the
 * MllpFramer, the message model of @medplum/core through decodeInbound, buildAck), one message
 * at a time per connection as labflow's listener answers. No storage, no matching, no hand-over
 * to the order. HL7_PORT: its MLLP port; BARE_PORT: an HTTP port answering /health/ready.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { createRequire } from 'node:module';
import process from 'node:process';

const require = createRequire(import.meta.url);
const { MllpFramer, frame } = require('../../dist/src/hl7/mllp-framer.js');
const { decodeInbound } = require('../../dist/src/hl7/inbound-message.js');
const { buildAck } = require('../../dist/src/hl7/ack.js');

const server = net.createServer((socket) => {
  const framer = new MllpFramer(10_000_000);
  socket.on('error', () => undefined);
  socket.on('data', (chunk) => {
    for (const event of framer.push(chunk)) {
      if (event.kind !== 'message') continue;
      const { header } = decodeInbound(event.bytes);
      const ack = buildAck({
        to: header,
        controlId: null,
        ackCode: 'AA',
        text: 'Message accepted.',
        ownControlId: randomUUID().replace(/-/g, '').slice(0, 20),
        at: new Date(),
      });
      socket.write(frame(ack));
    }
  });
});
server.listen(Number(process.env.HL7_PORT), '127.0.0.1');
http
  .createServer((request, response) => response.writeHead(request.url === '/health/ready' ? 200 : 404).end())
  .listen(Number(process.env.BARE_PORT), '127.0.0.1');
