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

export interface SandboxHl7LabOptions {
  port: number;
  host: string;
  /** labflow's HL7 listener, where the lab sends its results. */
  labflow: { host: string; port: number };
  /** From the order's ACK to the preliminary results, and again to the final ones. */
  resultDelayMs: number;
  catalog: SandboxLabCatalog;
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

/**
 * The sandbox lab as an HL7 peer (worker role `sandbox-hl7-lab`): an MLLP server of @medplum/hl7
 * that takes labflow's order messages like a reference lab's interface — ACK AA (AE when the
 * order's notes carry SANDBOX_REFUSE_NOTE) — then, `resultDelayMs` apart, sends preliminary results
 * for part of the order and the final report for all of it to labflow's listener (unless an ORC CA
 * cancelled the order first), values from the
 * sandbox result generator (deterministic per order). A sandbox HL7 lab account points at it, so
 * its orders run the production path end to end.
 */
export async function startSandboxHl7Lab(options: SandboxHl7LabOptions): Promise<SandboxHl7Lab> {
  const resend = options.resend ?? { initialMs: 1000, maxMs: 60_000 };
  /** The reports still to send, per order: a cancellation (ORC CA) drops them. */
  const timers = new Map<string, Set<NodeJS.Timeout>>();
  const later = (orderId: string, delayMs: number, work: () => Promise<void>) => {
    const ofOrder = timers.get(orderId) ?? new Set<NodeJS.Timeout>();
    timers.set(orderId, ofOrder);
    const timer = setTimeout(() => {
      ofOrder.delete(timer);
      work().catch((error: Error) => options.logger.warn(`sandbox HL7 lab: ${error.message}`));
    }, delayMs);
    ofOrder.add(timer);
  };
  const cancel = (orderId: string) => {
    for (const timer of timers.get(orderId) ?? []) clearTimeout(timer);
    timers.delete(orderId);
  };
  const server = new Hl7Server((connection: Hl7Connection) => {
    connection.addEventListener('message', ({ message }: { message: Hl7Message }) => {
      const orc = message.getSegment('ORC');
      const control = orc?.getComponent(1, 1);
      const orderId = orc?.getComponent(2, 1);
      const refused = control === 'NW' && message.getAllSegments('NTE').some((note) => note.getField(3).toString().includes(SANDBOX_REFUSE_NOTE));
      const ack = message.buildAck({ ackCode: refused ? 'AE' : 'AA' });
      const text = refused
        ? 'Refused by the sandbox lab (the order notes ask for it).'
        : control === 'CA'
          ? 'Cancellation received by the sandbox lab.'
          : 'Order received by the sandbox lab.';
      ack.getSegment('MSA')?.setField(3, text);
      connection.send(ack);
      if (!orderId) return;
      if (control === 'CA') cancel(orderId);
      if (refused || control !== 'NW') return;
      const report = (status: 'P' | 'F', step: number) =>
        later(orderId, options.resultDelayMs * step, async () => {
          const text = await resultMessage(options, message, orderId, status);
          // Until labflow ACKs AA: a listener down or answering AE must not strand the order.
          const attempt = (delayMs: number) =>
            later(orderId, delayMs, async () => {
              const answer = await sendReport(options, text).catch((error: Error) => `no ACK (${error.message})`);
              if (answer === 'AA') return;
              const next = Math.min(Math.max(delayMs * 2, resend.initialMs), resend.maxMs);
              options.logger.warn(`sandbox HL7 lab: results for order ${orderId} not taken (${answer}); sending again in ${next} ms`);
              attempt(next);
            });
          attempt(0);
        });
      report('P', 1);
      report('F', 2);
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
      for (const orderId of [...timers.keys()]) cancel(orderId);
      await server.stop({ forceDrainTimeoutMs: 1000 });
    },
  };
}

/** The ORU^R01 for an order (its control id fixed per order and status: a resend is a repeat to labflow). */
async function resultMessage(options: SandboxHl7LabOptions, order: Hl7Message, orderId: string, status: 'P' | 'F'): Promise<string> {
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
