/**
 * The fault run's scripted HL7 lab: an MLLP peer in the runner (never killed) that plays a
 * reference lab's interface with the faults a real one has, and records what it saw so the run can
 * check that nothing was lost or done twice.
 *
 * Orders in (labflow → lab), by the order's index k among the lab's orders:
 *   - down: nothing listens until `comeBack()` (connections refused: the orders wait);
 *   - k % 4 = 1: the first attempt's connection is dropped as soon as bytes arrive (mid-message);
 *   - k % 4 = 2: the first attempt is read and never ACKed (labflow's HL7_ACK_TIMEOUT runs out);
 *   - otherwise, and every later attempt: ACK AA. A repeated control id is ACKed again.
 * Results out (lab → labflow's listener), once an order's message is ACKed, queued and sent one
 * message at a time, each until the listener ACKs it AA (a refused connection, a close before the
 * ACK, an AE: sent again a second later, as a lab's interface engine does):
 *   - every order: a preliminary (P1, observed 09:00), then the final report (F);
 *   - k % 3 = 0: partials out of order: P2 (observed 10:00) before P1;
 *   - k % 3 = 1: a duplicate ORU: F sent twice under one control id;
 *   - k % 3 = 2: a partial after the final: P3 (a new control id) after F;
 *   - k % 2 = 0: the first attempt of F writes half its frame, then the connection drops;
 *   - `strays` results for orders labflow does not have (held for review, never dropped).
 */
import { Hl7Message } from '@medplum/core';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { frame, MllpFramer } from '../../src/hl7/mllp-framer';

export interface LabMarker {
  loinc: string;
  name: string;
  slug: string;
}

interface ScriptedLabOptions {
  port: number;
  /** labflow's HL7 listener. */
  listener: { host: string; port: number };
  /** MSH-4 of what the lab sends (the lab account's receiving facility). */
  facility: string;
  /** The components of the ordered panel (results go out under their LOINC codes). */
  markers: LabMarker[];
  /** How many results for unknown orders the lab sends. */
  strays: number;
  log: (message: string) => void;
}

/** One result message the lab sends, and what became of it. */
interface LabSend {
  controlId: string;
  /** The order (its placer number), or a random id for a stray. */
  placer: string;
  kind: 'P1' | 'P2' | 'P3' | 'F' | 'F-again' | 'stray';
  text: string;
  attempts: number;
  /** Attempts that failed: refused, dropped before the ACK, no ACK, AE/AR. */
  failures: string[];
  acked: boolean;
  /** Drop the first attempt after half its frame. */
  dropFirst: boolean;
}

/** The values the lab reports: preliminary ones differ, so a stale one surviving the final shows. */
export const finalValue = (k: number, marker: number) => String(40 + k + marker);
const preliminaryValue = (k: number, marker: number, which: 'P1' | 'P2' | 'P3') => String({ P1: 500, P2: 600, P3: 700 }[which] + k + marker);

export class ScriptedHl7Lab {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  /** Order index by placer number (labflow's order id). */
  private readonly indexOf = new Map<string, number>();
  /** Every order message that arrived: control id, placer, ORC-1, and what the lab did with it. */
  readonly received: Array<{ controlId: string; placer: string; control: string; answer: 'dropped' | 'no ack' | 'AA' }> = [];
  readonly sends: LabSend[] = [];
  private readonly queue: LabSend[] = [];
  private readonly scheduled = new Set<string>();
  private stopped = false;
  private wake: () => void = () => undefined;
  private readonly sender: Promise<void>;

  constructor(private readonly options: ScriptedLabOptions) {
    this.sender = this.sendLoop();
  }

  /** The lab's orders, in index order (call before they are sent). */
  expect(orderIds: string[]): void {
    orderIds.forEach((orderId, index) => this.indexOf.set(orderId, index));
  }

  get listening(): boolean {
    return this.server !== null;
  }

  /** Result messages queued or being sent. */
  get pending(): number {
    return this.sends.filter((send) => !send.acked).length;
  }

  /** The lab's interface comes up (after being down): labflow's waiting orders can reach it. */
  async comeBack(): Promise<void> {
    const server = net.createServer((socket) => this.onConnection(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    for (let index = 0; index < this.options.strays; index += 1) {
      const placer = randomUUID();
      this.enqueue({
        placer,
        kind: 'stray',
        controlId: `STRAY-${index}-${placer.slice(0, 8)}`,
        text: this.oru(`STRAY-${index}-${placer.slice(0, 8)}`, placer, 'P', [
          `OBX|1|NM|${this.options.markers[0].loinc}^${this.options.markers[0].name}^LN||1|U||N|||P`,
        ]),
      });
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.wake();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    await this.sender;
  }

  private onConnection(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    const framer = new MllpFramer(10_000_000);
    let first = true;
    socket.on('data', (chunk: Buffer) => {
      // The connection of a send the lab drops is closed at its first bytes, before the frame ends.
      if (first) {
        first = false;
        const peek = /ORC\|NW\|([0-9a-f-]{36})/.exec(chunk.toString('utf8'));
        const index = peek ? this.indexOf.get(peek[1]) : undefined;
        // MSH-10: the tenth field of the first segment (the field separator counts as MSH-1).
        const control = chunk.toString('utf8').split('\r')[0].split('|')[9];
        if (peek && index !== undefined && index % 4 === 1 && !this.received.some((row) => row.placer === peek[1])) {
          this.received.push({ controlId: control ?? '?', placer: peek[1], control: 'NW', answer: 'dropped' });
          socket.destroy();
          return;
        }
      }
      for (const event of framer.push(chunk)) {
        if (event.kind !== 'message') continue;
        const message = Hl7Message.parse(event.bytes.toString('utf8'));
        const controlId = message.getSegment('MSH')?.getField(10).toString() ?? '';
        const orc = message.getSegment('ORC');
        const placer = orc?.getComponent(2, 1) ?? '';
        const control = orc?.getComponent(1, 1) ?? '';
        const index = this.indexOf.get(placer);
        const seenBefore = this.received.some((row) => row.placer === placer);
        if (index !== undefined && index % 4 === 2 && !seenBefore) {
          this.received.push({ controlId, placer, control, answer: 'no ack' });
          continue;
        }
        this.received.push({ controlId, placer, control, answer: 'AA' });
        const ack = message.buildAck({ ackCode: 'AA' });
        ack.getSegment('MSA')?.setField(3, 'Order received by the scripted lab.');
        socket.write(frame(ack.toString()));
        if (index !== undefined && control === 'NW' && !this.scheduled.has(placer)) {
          this.scheduled.add(placer);
          this.scheduleResults(placer, index);
        }
      }
    });
  }

  private scheduleResults(placer: string, k: number): void {
    const markers = this.options.markers;
    const obx = (values: (marker: number) => string, status: 'P' | 'F', observedAt: string, count = markers.length) =>
      markers
        .slice(0, count)
        .map((marker, index) => `OBX|${index + 1}|NM|${marker.loinc}^${marker.name}^LN||${values(index)}|U|1-1000|N|||${status}|||${observedAt}`);
    const id = (kind: string) => `R${kind}-${placer.slice(0, 8)}-${k}`;
    const p = (which: 'P1' | 'P2' | 'P3', hour: string) =>
      ({
        placer,
        kind: which,
        controlId: id(which),
        text: this.oru(
          id(which),
          placer,
          'P',
          obx((marker) => preliminaryValue(k, marker, which), 'P', `20261128${hour}0000`, 2),
        ),
      }) as const;
    const final = {
      placer,
      kind: 'F' as const,
      controlId: id('F'),
      text: this.oru(
        id('F'),
        placer,
        'F',
        obx((marker) => finalValue(k, marker), 'F', '20261128110000'),
      ),
      dropFirst: k % 2 === 0,
    };
    if (k % 3 === 0) this.enqueue(p('P2', '10'));
    this.enqueue(p('P1', '09'));
    this.enqueue(final);
    if (k % 3 === 1) this.enqueue({ ...final, kind: 'F-again', dropFirst: false });
    if (k % 3 === 2) this.enqueue(p('P3', '12'));
  }

  private enqueue(send: Pick<LabSend, 'placer' | 'kind' | 'controlId' | 'text'> & { dropFirst?: boolean }): void {
    const row: LabSend = { dropFirst: false, ...send, attempts: 0, failures: [], acked: false };
    this.sends.push(row);
    this.queue.push(row);
    this.wake();
  }

  private oru(controlId: string, placer: string, status: 'P' | 'F', observations: string[]): string {
    const filler = `SCR-${placer.slice(0, 8)}`;
    return [
      `MSH|^~\\&|SCRIPTED|${this.options.facility}|LABFLOW|LABFLOW-FAULTS|20261128120000||ORU^R01^ORU_R01|${controlId}|P|2.5.1||||||UNICODE UTF-8`,
      'PID|1||PAT-1^^^SCRIPTED||OKONKWO^MARGUERITE||19860412|F',
      `ORC|RE|${placer}^LABFLOW|${filler}^SCRIPTED||${status === 'F' ? 'CM' : 'A'}`,
      `OBR|1|${placer}^LABFLOW|${filler}^SCRIPTED|10231^CMP^L|||20261128080000|||||||||||||||20261128115900|||${status}`,
      ...observations,
    ].join('\r');
  }

  private async sendLoop(): Promise<void> {
    while (!this.stopped) {
      const send = this.queue[0];
      if (!send) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        continue;
      }
      send.attempts += 1;
      const outcome = await this.sendOnce(send.text, send.dropFirst && send.attempts === 1);
      if (outcome === 'AA') {
        send.acked = true;
        this.queue.shift();
        await new Promise((resolve) => setTimeout(resolve, 500));
      } else {
        send.failures.push(outcome);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  /** One attempt: the listener's ACK code, or why there was none. */
  private sendOnce(text: string, dropHalfway: boolean): Promise<string> {
    return new Promise((resolve) => {
      const socket = net.connect(this.options.listener.port, this.options.listener.host);
      const framer = new MllpFramer(1_000_000);
      const done = (outcome: string) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(outcome);
      };
      const timer = setTimeout(() => done('no ACK within 10 s'), 10_000);
      socket.once('error', (error) => done(`error: ${error.message}`));
      socket.once('close', () => done('closed before the ACK'));
      socket.once('connect', () => {
        const bytes = frame(text);
        if (dropHalfway) {
          socket.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => done('dropped mid-message (on purpose)'));
          return;
        }
        socket.write(bytes);
      });
      socket.on('data', (chunk: Buffer) => {
        for (const event of framer.push(chunk)) {
          if (event.kind !== 'message') continue;
          const code = /\rMSA\|([A-Z]{2})\|/.exec(event.bytes.toString('utf8'))?.[1] ?? '?';
          done(code);
        }
      });
    });
  }
}
