import type { Hl7Message, Hl7Segment } from '@medplum/core';
import { parseHl7Timestamp, unescapeValue } from './hl7-encoding';

/** One OBX row as the lab sent it (escapes undone). */
export interface Observation {
  valueType: string;
  /** OBX-3: the identifier and, when given, its alternate (often the lab's code with LOINC beside it). */
  code: string;
  text: string;
  system: string;
  altCode: string;
  altSystem: string;
  /** OBX-5 as text; SN joined (`<5`, `>=10`, `1-5`); CWE its text (else its code); ED the base64 data. */
  value: string;
  units: string;
  referenceRange: string;
  abnormalFlags: string[];
  /** OBX-11: F, P, C, X, D, I, R… */
  status: string;
  observedAt: Date | null;
  performingLab: string | null;
  /** ED values: the MIME subtype, e.g. pdf. */
  mediaSubtype: string | null;
}

/** What matching a message and its fact for the order need of an OBX row: its status (OBX-11). */
export type ObservationStatus = Pick<Observation, 'status'>;

/** One ORC/OBR group: which order it is and what the lab says about it. */
export interface ReportedOrder<O extends ObservationStatus = Observation> {
  placer: string | null;
  filler: string | null;
  /** ORC-1 order control (RE, SC, OK, CR, OC…). */
  orderControl: string | null;
  /** ORC-5 order status (IP, A, CM, CA, SC…). */
  orderStatus: string | null;
  /** OBR-25 result status of the report (F, P, C, X, I…). */
  resultStatus: string | null;
  observations: O[];
  notes: string[];
}

/**
 * The orders an ORU^R01 or an order-status message (ORM^O01, ORR^O02, OML^O21) reports, in
 * message order: an ORC opens a group, an OBR without an ORC before it opens one too, OBX and NTE
 * rows belong to the group before them.
 */
export function readReportedOrders(message: Hl7Message): ReportedOrder[] {
  return readOrders(message, observationOf);
}

/**
 * readReportedOrders with each OBX row read for its status only: what the listener needs of every
 * message it takes (its order's numbers and fact), without reading values it does not store apart.
 */
export function readReportedStatuses(message: Hl7Message): Array<ReportedOrder<ObservationStatus>> {
  return readOrders(message, (segment) => ({ status: unescapeValue(segment.getComponent(11, 1)).trim().toUpperCase() }));
}

function readOrders<O extends ObservationStatus>(message: Hl7Message, readObservation: (segment: Hl7Segment) => O): Array<ReportedOrder<O>> {
  const orders: Array<ReportedOrder<O>> = [];
  let current: ReportedOrder<O> | null = null;
  let lastWasOrc = false;
  const open = (): ReportedOrder<O> => {
    const group: ReportedOrder<O> = { placer: null, filler: null, orderControl: null, orderStatus: null, resultStatus: null, observations: [], notes: [] };
    orders.push(group);
    return group;
  };
  for (const segment of message.segments) {
    const text = (index: number, part = 1) => unescapeValue(segment.getComponent(index, part)).trim();
    switch (segment.name) {
      case 'ORC':
        current = open();
        current.orderControl = text(1) || null;
        current.placer = text(2) || null;
        current.filler = text(3) || null;
        current.orderStatus = text(5) || null;
        lastWasOrc = true;
        continue;
      case 'OBR':
        if (!current || !lastWasOrc) {
          // A second OBR under one ORC is a group of its own with the ORC's numbers.
          const previous = current;
          current = open();
          current.placer = previous?.placer ?? null;
          current.filler = previous?.filler ?? null;
          current.orderControl = previous?.orderControl ?? null;
          current.orderStatus = previous?.orderStatus ?? null;
        }
        current.placer = text(2) || current.placer;
        current.filler = text(3) || current.filler;
        current.resultStatus = text(25) || null;
        break;
      case 'OBX':
        if (current) current.observations.push(readObservation(segment));
        break;
      case 'NTE':
        if (current) current.notes.push(text(3));
        break;
    }
    lastWasOrc = false;
  }
  return orders;
}

function observationOf(segment: Hl7Segment): Observation {
  const raw = (index: number, part = 1) => segment.getComponent(index, part);
  const text = (index: number, part = 1) => unescapeValue(raw(index, part)).trim();
  const valueType = text(2).toUpperCase();
  let value: string;
  let mediaSubtype: string | null = null;
  if (valueType === 'SN') {
    // comparator ^ number ^ separator/suffix ^ number: `<^5`, `^1^-^5`, `>=^10`
    value = [text(5, 1), text(5, 2), text(5, 3), text(5, 4)].join('');
  } else if (valueType === 'CWE' || valueType === 'CE') {
    value = text(5, 2) || text(5, 1);
  } else if (valueType === 'ED') {
    // source ^ type ^ subtype ^ encoding ^ data
    mediaSubtype = text(5, 3).toLowerCase() || null;
    value = raw(5, 5);
  } else {
    // NM, ST, TX, FT…: repetitions of text are lines.
    const field = segment.getField(5);
    value = field.components
      .map((_, repetition) => unescapeValue(field.getComponent(1, undefined, repetition)))
      .join('\n')
      .trim();
  }
  const flags = segment.getField(8);
  return {
    valueType,
    code: text(3, 1),
    text: text(3, 2),
    system: text(3, 3),
    altCode: text(3, 4),
    altSystem: text(3, 6),
    value,
    units: text(6, 1),
    referenceRange: text(7),
    abnormalFlags: flags.components.map((_, repetition) => flags.getComponent(1, undefined, repetition).trim().toUpperCase()).filter(Boolean),
    status: text(11).toUpperCase(),
    observedAt: parseHl7Timestamp(text(14)),
    performingLab: text(23) || null,
    mediaSubtype,
  };
}
