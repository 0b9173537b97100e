import { Hl7Message } from '@medplum/core';
import { ENCODING_CHARACTERS } from './hl7-encoding';

/** Why an inbound message is refused before anything is stored: the ACK code and its text. */
export class Hl7Refusal extends Error {
  constructor(
    readonly ackCode: 'AE' | 'AR',
    message: string,
    /** HL7 table 0357 error code for ERR-3. */
    readonly errorCode: string,
    /** MSH-10, when it could be read (MSA-2 echoes it). */
    readonly controlId: string | null = null,
    readonly header: InboundHeader | null = null,
  ) {
    super(message);
  }
}

/** The MSH fields labflow reads from every message it receives. */
export interface InboundHeader {
  sendingApplication: string;
  sendingFacility: string;
  receivingApplication: string;
  receivingFacility: string;
  /** MSH-9.1^MSH-9.2, e.g. ORU^R01. */
  messageType: string;
  controlId: string;
  processingId: string;
  version: string;
}

export interface DecodedMessage {
  text: string;
  message: Hl7Message;
  header: InboundHeader;
}

/** The character sets labflow reads (MSH-18), to the WHATWG decoder names. Absent: ASCII, read as UTF-8. */
const CHARSETS: Record<string, string> = { '': 'utf-8', ASCII: 'utf-8', 'UNICODE UTF-8': 'utf-8', 'UTF-8': 'utf-8', '8859/1': 'iso-8859-1' };
export const SUPPORTED_VERSIONS = ['2.3', '2.3.1', '2.4', '2.5', '2.5.1'];

/**
 * One framed message's bytes as text and parsed, with its header checked: MSH first, the standard
 * delimiters, a declared character set labflow reads and bytes valid in it, a message type, a
 * control id and a version. Anything else is an Hl7Refusal (AR: resending it as is cannot help).
 */
export function decodeInbound(bytes: Buffer): DecodedMessage {
  // MSH is ASCII whatever the character set: read it byte for byte to learn the set.
  const firstSegment = bytes.subarray(0, Math.max(0, bytes.indexOf(0x0d) === -1 ? bytes.length : bytes.indexOf(0x0d))).toString('latin1');
  if (!firstSegment.startsWith('MSH')) throw new Hl7Refusal('AR', 'The message does not start with an MSH segment.', '100');
  if (firstSegment[3] !== '|') throw new Hl7Refusal('AR', `Field separator ${JSON.stringify(firstSegment[3] ?? '')} is not supported; use |.`, '102');
  const rawFields = firstSegment.split('|');
  const encoding = rawFields[1] ?? '';
  const controlId = rawFields[9] || null;
  if (encoding !== ENCODING_CHARACTERS && encoding !== `${ENCODING_CHARACTERS}#`) {
    throw new Hl7Refusal('AR', `Encoding characters ${JSON.stringify(encoding)} are not supported; use ${ENCODING_CHARACTERS}.`, '102', controlId);
  }
  const charset = (rawFields[17] ?? '').trim().toUpperCase();
  const decoder = CHARSETS[charset];
  if (!decoder)
    throw new Hl7Refusal('AR', `Character set ${JSON.stringify(rawFields[17])} (MSH-18) is not supported; send UNICODE UTF-8 or 8859/1.`, '203', controlId);
  let text: string;
  try {
    text = new TextDecoder(decoder, { fatal: true }).decode(bytes);
  } catch {
    throw new Hl7Refusal(
      'AR',
      `The message is not valid ${decoder === 'utf-8' ? 'UTF-8' : charset} (MSH-18 ${JSON.stringify(rawFields[17] ?? '')}).`,
      '203',
      controlId,
    );
  }
  // Segments end with CR; a lone LF some senders add after it is not part of the data.
  const message = Hl7Message.parse(text.replace(/\r\n/g, '\r').replace(/\r+$/, ''));
  const msh = message.getSegment('MSH');
  const component = (index: number, part = 1) => msh?.getComponent(index, part) ?? '';
  const header: InboundHeader = {
    sendingApplication: component(3),
    sendingFacility: component(4),
    receivingApplication: component(5),
    receivingFacility: component(6),
    messageType: [component(9, 1), component(9, 2)].filter(Boolean).join('^'),
    controlId: msh?.getField(10).toString() ?? '',
    processingId: component(11),
    version: component(12),
  };
  if (!header.controlId) throw new Hl7Refusal('AR', 'MSH-10 (message control id) is empty.', '101');
  if (!header.sendingFacility) throw new Hl7Refusal('AR', 'MSH-4 (sending facility) is empty.', '101', header.controlId, header);
  if (!header.messageType) throw new Hl7Refusal('AR', 'MSH-9 (message type) is empty.', '101', header.controlId, header);
  if (!SUPPORTED_VERSIONS.includes(header.version)) {
    throw new Hl7Refusal(
      'AR',
      `HL7 version ${JSON.stringify(header.version)} (MSH-12) is not supported; send ${SUPPORTED_VERSIONS.join(', ')}.`,
      '203',
      header.controlId,
      header,
    );
  }
  return { text, message, header };
}
