import { Hl7Message } from '@medplum/core';
import { ENCODING_CHARACTERS, field, hl7Timestamp, segment } from './hl7-encoding';
import type { InboundHeader } from './inbound-message';

export type AckCode = 'AA' | 'AE' | 'AR';

export interface AckInput {
  /** The header of the message answered (null: it could not be read). */
  to: InboundHeader | null;
  /** MSA-2 when `to` is null but the control id could be read. */
  controlId: string | null;
  ackCode: AckCode;
  /** MSA-3, and ERR-8 on an error. */
  text: string;
  /** HL7 table 0357 code for ERR-3 (0 accepted, 100 segment sequence, 101 required field, 102 data type, 203 unsupported version/charset, 204 unknown key, 207 application error). */
  errorCode?: string;
  ownControlId: string;
  at: Date;
}

/**
 * An original-mode ACK: the answered message's sender and receiver swapped, MSA-1 the code, MSA-2
 * its control id, MSA-3 the reason, and an ERR segment on AE/AR (ERR-3 code, ERR-4 severity,
 * ERR-8 text, as 2.5 has them).
 */
export function buildAck(input: AckInput): string {
  const to = input.to;
  const trigger = to?.messageType.split('^')[1] ?? '';
  const segments = [
    [
      'MSH',
      ENCODING_CHARACTERS,
      field(to?.receivingApplication || 'LABFLOW'),
      field(to?.receivingFacility || 'LABFLOW'),
      field(to?.sendingApplication),
      field(to?.sendingFacility),
      hl7Timestamp(input.at),
      '',
      field('ACK', trigger, 'ACK'),
      field(input.ownControlId),
      to?.processingId || 'P',
      to?.version || '2.5.1',
    ].join('|'),
    segment('MSA', [input.ackCode, field(to?.controlId ?? input.controlId), field(input.text)]),
  ];
  if (input.ackCode !== 'AA') segments.push(segment('ERR', ['', '', field(input.errorCode ?? '207', '', 'HL70357'), 'E', '', '', '', field(input.text)]));
  return segments.join('\r');
}

/** MSA-1 and MSA-3 of an ACK a lab sent back (null code: no MSA). */
export function readAck(ack: Hl7Message): { ackCode: string | null; text: string; controlId: string | null } {
  const msa = ack.getSegment('MSA');
  const err = ack.getSegment('ERR');
  const text = msa?.getComponent(3, 1) || err?.getComponent(8, 1) || err?.getComponent(3, 2) || '';
  return { ackCode: msa?.getComponent(1, 1).toUpperCase() || null, text, controlId: msa?.getComponent(2, 1) || null };
}
