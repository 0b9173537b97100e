/**
 * The load generator of bench:hl7, in a process of its own: CONNECTIONS MLLP connections to
 * HOST:PORT, each sending ORU^R01 result messages one after another (the next once the ACK of the
 * last came, as MLLP senders do) for SECONDS. Each message has a control id of its own (PREFIX
 * and a counter) and reports a preliminary glucose for one of ORDER_IDS in turn, from FACILITY.
 * Prints {acked, refused, perSecond} as JSON: acked are the AA answers.
 */
import { Buffer } from 'node:buffer';
import console from 'node:console';
import net from 'node:net';
import process from 'node:process';

const { HOST, PORT, SECONDS, CONNECTIONS, FACILITY, PREFIX } = process.env;
const orderIds = JSON.parse(process.env.ORDER_IDS);
const VT = Buffer.from([0x0b]);
const END = Buffer.from([0x1c, 0x0d]);
let counter = 0;

function message() {
  counter += 1;
  const placer = orderIds[counter % orderIds.length];
  const text = [
    `MSH|^~\\&|BENCHLAB|${FACILITY}|LABFLOW|LABFLOW|20261128120000||ORU^R01^ORU_R01|${PREFIX}-${counter}|P|2.5.1`,
    'PID|1||PAT-1^^^BENCHLAB||BENCH^READER||19800101|F',
    `ORC|RE|${placer}^LABFLOW|ACC-${placer.slice(0, 8)}^BENCHLAB||A`,
    `OBR|1|${placer}^LABFLOW|ACC-${placer.slice(0, 8)}^BENCHLAB|LIPID^Lipid panel^L|||20261128080000|||||||||||||||20261128115900|||P`,
    `OBX|1|NM|2093-3^Cholesterol^LN||${150 + (counter % 50)}|mg/dL|<200|N|||P|||20261128110000`,
  ].join('\r');
  return Buffer.concat([VT, Buffer.from(text), END]);
}

const deadline = Date.now() + Number(SECONDS) * 1000;
let acked = 0;
let refused = 0;

function connection() {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(PORT), HOST);
    let data = Buffer.alloc(0);
    const next = () => {
      if (Date.now() >= deadline) {
        socket.end();
        resolve();
        return;
      }
      socket.write(message());
    };
    socket.on('connect', next);
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      for (let end = data.indexOf(END); end !== -1; end = data.indexOf(END)) {
        const ack = data.subarray(1, end).toString('latin1');
        data = data.subarray(end + 2);
        if (/\rMSA\|AA\|/.test(ack)) acked += 1;
        else refused += 1;
        next();
      }
    });
    socket.on('error', reject);
  });
}

const started = Date.now();
await Promise.all(Array.from({ length: Number(CONNECTIONS) }, connection));
const seconds = (Date.now() - started) / 1000;
console.log(JSON.stringify({ acked, refused, perSecond: acked / seconds }));
