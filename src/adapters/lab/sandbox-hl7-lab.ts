import { Hl7Message } from '@medplum/core';
import { type Hl7Connection, Hl7Server } from '@medplum/hl7';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { field, hl7Timestamp, segment } from '../../hl7/hl7-encoding';
import { sendAndAwaitAck } from '../../hl7/mllp-client';
import { type BiomarkerResult, generateSandboxResults, type ResultMarker } from '../../results';

/** What the sandbox lab knows of an order it is sent: the biomarkers it reports (from labflow's catalog). */
export interface SandboxLabCatalog {
  markersOfOrder(orderId: string): Promise<ResultMarker[]>;
}

/** A report the sandbox lab sends: P preliminary (part of the order), F final (all of it). */
export type SandboxReportStatus = 'P' | 'F';

/** A report the sandbox lab owes labflow, as its outbox holds it. */
export interface OwedReport {
  orderId: string;
  status: SandboxReportStatus;
  /** The order message it answers (its MSH, PID, ORC and OBR are echoed). */
  orderMessage: string;
  /** The wait before the last attempt (0 before the first). */
  backoffMs: number;
}

/**
 * The sandbox lab's durable outbox (SandboxHl7LabOutboxRepository): what it owes labflow survives
 * the lab being killed, and a restarted lab sends it.
 */
export interface SandboxLabOutbox {
  /** Holds an order's reports, due `dueInMs` from now; a repeat of the order keeps the first ones. */
  hold(orderId: string, orderMessage: string, reports: ReadonlyArray<{ status: SandboxReportStatus; dueInMs: number }>): Promise<void>;
  /** Drops what is still owed for an order (cancelled). */
  drop(orderId: string): Promise<void>;
  /** Up to `limit` due reports, each leased for `leaseMs`. */
  claimDue(limit: number, leaseMs: number): Promise<OwedReport[]>;
  /** labflow ACKed it AA: no longer owed. */
  sent(report: OwedReport): Promise<void>;
  /** Not taken: due again in `backoffMs`. */
  later(report: OwedReport, backoffMs: number): Promise<void>;
  /** How long until the next report is due; null when nothing is owed. */
  nextDueInMs(): Promise<number | null>;
}

export interface SandboxHl7LabOptions {
  port: number;
  host: string;
  /** labflow's HL7 listener, where the lab sends its results. */
  labflow: { host: string; port: number };
  /** From the order's ACK to the preliminary results, and again to the final ones. */
  resultDelayMs: number;
  catalog: SandboxLabCatalog;
  outbox: SandboxLabOutbox;
  logger: { warn(message: string): void };
  /** A report labflow did not ACK AA (down, AE, no answer) is sent again after this, doubling up to `max` (default 1 s, 60 s). */
  resend?: { initialMs: number; maxMs: number };
}

export interface SandboxHl7Lab {
  port: number;
  close(): Promise<void>;
}

/** An order whose notes say this is refused with AE, so a team can rehearse fixing and resending. */
export const SANDBOX_REFUSE_NOTE = 'sandbox:refuse';

/** Reports sent at once, at most; the outbox is looked at this often even when nothing is due here (another sandbox lab's leases run out). */
const SEND_BATCH = 16;
const POLL_MS = 1000;
/** A claimed report is sent again after this if its sender died: longer than a send may take (connect 10 s, ACK 30 s). */
const LEASE_MS = 45_000;

/**
 * The sandbox lab as an HL7 peer (worker role `sandbox-hl7-lab`): an MLLP server of @medplum/hl7
 * that takes labflow's order messages like a reference lab's interface — ACK AA (AE when the
 * order's notes carry SANDBOX_REFUSE_NOTE) — then, `resultDelayMs` apart, sends preliminary results
 * for part of the order and the final report for all of it to labflow's listener (unless an ORC CA
 * cancelled the order first), values from the sandbox result generator (deterministic per order).
 * What it owes is in its outbox before it ACKs the order, and leaves it only when labflow ACKed AA:
 * killed and started again, it sends what it still owed. A sandbox HL7 lab account points at it,
 * so its orders run the production path end to end.
 */
export async function startSandboxHl7Lab(options: SandboxHl7LabOptions): Promise<SandboxHl7Lab> {
  const sender = startSender(options);
  const server = new Hl7Server((connection: Hl7Connection) => {
    connection.addEventListener('message', ({ message }: { message: Hl7Message }) => {
      take(options, message, sender.wake).then(
        (ack) => connection.send(ack),
        // Unanswered: labflow's send waits for an ACK that does not come and sends the order again.
        (error: Error) => options.logger.warn(`sandbox HL7 lab: order not taken (${error.message})`),
      );
    });
  });
  server.start(options.port);
  await new Promise<void>((resolve, reject) => {
    server.server!.once('listening', () => resolve());
    server.server!.once('error', reject);
  });
  return {
    port: (server.server!.address() as AddressInfo).port,
    close: async () => {
      await sender.stop();
      await server.stop({ forceDrainTimeoutMs: 1000 });
    },
  };
}

/** Takes an order message: what it will owe is committed to the outbox (a cancellation drops it) before the ACK. */
async function take(options: SandboxHl7LabOptions, message: Hl7Message, wake: (inMs: number) => void): Promise<Hl7Message> {
  const orc = message.getSegment('ORC');
  const control = orc?.getComponent(1, 1);
  const orderId = orc?.getComponent(2, 1);
  const refused = control === 'NW' && message.getAllSegments('NTE').some((note) => note.getField(3).toString().includes(SANDBOX_REFUSE_NOTE));
  if (orderId && control === 'CA') await options.outbox.drop(orderId);
  if (orderId && control === 'NW' && !refused) {
    await options.outbox.hold(orderId, message.toString(), [
      { status: 'P', dueInMs: options.resultDelayMs },
      { status: 'F', dueInMs: options.resultDelayMs * 2 },
    ]);
    wake(options.resultDelayMs);
  }
  const ack = message.buildAck({ ackCode: refused ? 'AE' : 'AA' });
  const text = refused
    ? 'Refused by the sandbox lab (the order notes ask for it).'
    : control === 'CA'
      ? 'Cancellation received by the sandbox lab.'
      : 'Order received by the sandbox lab.';
  ack.getSegment('MSA')?.setField(3, text);
  return ack;
}

/**
 * Sends the outbox's due reports until labflow ACKs each AA: a listener down or answering AE must
 * not strand the order. One pass at a time; the next when the next report is due (or POLL_MS).
 */
function startSender(options: SandboxHl7LabOptions): { wake(inMs: number): void; stop(): Promise<void> } {
  const resend = options.resend ?? { initialMs: 1000, maxMs: 60_000 };
  let timer: NodeJS.Timeout | null = null;
  let timerAt = Infinity;
  let pass: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const wake = (inMs: number) => {
    if (stopped) return;
    const at = Date.now() + inMs;
    if (timer && at >= timerAt) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(run, Math.max(0, inMs));
  };
  const run = () => {
    timer = null;
    timerAt = Infinity;
    if (pass) {
      again = true;
      return;
    }
    pass = sendDue()
      .catch((error: Error) => options.logger.warn(`sandbox HL7 lab: outbox not read (${error.message})`))
      .finally(() => {
        pass = null;
        wake(again ? 0 : POLL_MS);
        again = false;
      });
  };
  const send = async (report: OwedReport) => {
    let answer: string;
    try {
      answer = await sendReport(options, await resultMessage(options, Hl7Message.parse(report.orderMessage), report.orderId, report.status));
    } catch (error) {
      answer = `no ACK (${(error as Error).message})`;
    }
    if (answer === 'AA') return options.outbox.sent(report);
    const next = Math.min(Math.max(report.backoffMs * 2, resend.initialMs), resend.maxMs);
    options.logger.warn(`sandbox HL7 lab: results for order ${report.orderId} not taken (${answer}); sending again in ${next} ms`);
    await options.outbox.later(report, next);
  };
  const sendDue = async () => {
    for (
      let owed = await options.outbox.claimDue(SEND_BATCH, LEASE_MS);
      owed.length > 0 && !stopped;
      owed = await options.outbox.claimDue(SEND_BATCH, LEASE_MS)
    ) {
      await Promise.all(owed.map((report) => send(report).catch((error: Error) => options.logger.warn(`sandbox HL7 lab: ${error.message}`))));
    }
    const next = await options.outbox.nextDueInMs();
    if (next !== null) wake(Math.min(next, POLL_MS));
  };
  wake(0);
  return {
    wake,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await pass;
    },
  };
}

/** The ORU^R01 for an order (its control id fixed per order and status: a resend is a repeat to labflow). */
async function resultMessage(options: SandboxHl7LabOptions, order: Hl7Message, orderId: string, status: SandboxReportStatus): Promise<string> {
  const markers = await options.catalog.markersOfOrder(orderId);
  const { results, missingResults } = generateSandboxResults(markers, {
    interpretation: 'normal',
    hasMissingResults: false,
    collectedAt: new Date(),
    seed: orderId,
    sex: null,
  });
  // Preliminary: the first half of the biomarkers; final: all of them.
  const reported = status === 'P' ? results.slice(0, Math.max(1, Math.floor(results.length / 2))) : results;
  const msh = order.getSegment('MSH')!;
  const filler = `SBX-${createHash('sha256').update(orderId).digest('hex').slice(0, 10).toUpperCase()}`;
  return [
    [
      'MSH',
      '^~\\&',
      msh.getField(5).toString(),
      msh.getField(6).toString(),
      msh.getField(3).toString(),
      msh.getField(4).toString(),
      hl7Timestamp(new Date()),
      '',
      'ORU^R01^ORU_R01',
      `${filler}-${status}`,
      msh.getField(11).toString(),
      msh.getField(12).toString(),
      '',
      '',
      '',
      '',
      '',
      'UNICODE UTF-8',
    ].join('|'),
    order.getSegment('PID')!.toString(),
    segment('ORC', ['RE', order.getSegment('ORC')!.getField(2).toString(), field(filler, 'SANDBOX'), '', status === 'F' ? 'CM' : 'A']),
    segment('OBR', [
      '1',
      order.getSegment('OBR')!.getField(2).toString(),
      field(filler, 'SANDBOX'),
      order.getSegment('OBR')!.getField(4).toString(),
      ...Array(20).fill(''),
      status,
    ]),
    ...reported.map((result, index) => observation(result, index + 1, status)),
    ...(status === 'F'
      ? missingResults.map((missing, index) =>
          segment('OBX', [
            String(reported.length + index + 1),
            'ST',
            field(missing.loinc ?? missing.provider_id, missing.name, missing.loinc ? 'LN' : 'L'),
            '',
            '',
            '',
            '',
            '',
            '',
            '',
            'X',
          ]),
        )
      : []),
  ].join('\r');
}

/** Sends a report to labflow's listener; labflow's ACK code (MSA-1). Rejects when the listener cannot be reached or drops the connection. */
async function sendReport(options: SandboxHl7LabOptions, text: string): Promise<string> {
  const ack = await sendAndAwaitAck({ ...options.labflow, tls: null }, text, { connectTimeoutMs: 10_000, ackTimeoutMs: 30_000 });
  return ack.getSegment('MSA')?.getField(1).toString() || 'no MSA';
}

const FLAGS: Record<string, string> = { normal: 'N', abnormal: 'A', critical: 'AA' };

function observation(result: BiomarkerResult, setId: number, status: 'P' | 'F'): string {
  const code = result.loinc ? field(result.loinc, result.name, 'LN') : field(result.provider_id, result.name, 'L');
  const [type, value] =
    result.type === 'numeric'
      ? ['NM', field(result.result)]
      : result.type === 'range'
        ? ['SN', field(...(/^([<>]=?)(.*)$/.exec(result.result)?.slice(1) ?? ['', result.result]))]
        : result.type === 'coded_value'
          ? ['CWE', field(result.result, result.result, 'L')]
          : ['ST', field(result.result)];
  const flag = result.is_above_max_range ? 'H' : result.is_below_min_range ? 'L' : (FLAGS[result.interpretation ?? ''] ?? '');
  return segment('OBX', [String(setId), type, code, '', value, field(result.unit), field(result.reference_range), flag, '', '', status]);
}
