import { Hl7Message } from '@medplum/core';
import { buildAck } from '../../src/hl7/ack';
import { escapeValue, parseHl7Timestamp, unescapeValue } from '../../src/hl7/hl7-encoding';
import { factOf } from '../../src/hl7/hl7-inbound.service';
import { matchKeysOf } from '../../src/hl7/lab-facts';
import { decodeInbound, Hl7Refusal } from '../../src/hl7/inbound-message';
import { readReportedOrders, readReportedStatuses } from '../../src/hl7/lab-report';
import { frame, MllpFramer } from '../../src/hl7/mllp-framer';
import { mapObservations } from '../../src/hl7/observation-results';
import { buildOrderMessage, type OrderMessageInput } from '../../src/hl7/order-message';
import type { ResultMarker } from '../../src/results';

const ORDER_ID = '5a1c0e3e-7d0b-4c6e-9a57-0d3f5c2b9e11';

const input = (overrides: Partial<OrderMessageInput> = {}): OrderMessageInput => ({
  control: 'new',
  controlId: 'LF0001',
  sentAt: new Date('2026-11-28T12:00:00Z'),
  addressing: {
    sendingApplication: 'LABFLOW',
    sendingFacility: 'LF',
    receivingApplication: 'QDX',
    receivingFacility: 'QDX-PHX',
    version: '2.3',
    orderMessageType: 'ORM^O01',
  },
  processingId: 'P',
  orderId: ORDER_ID,
  fillerNumber: null,
  patient: {
    id: 'user-1',
    firstName: 'Marguerite',
    lastName: "O'Neil^Okonkwo",
    dob: '1986-04-12',
    gender: 'female',
    phone: '+14155550123',
    address: { firstLine: '1 Market St', secondLine: null, city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' },
  },
  physician: { npi: '1234567893', firstName: 'Imani', lastName: 'Castellanos' },
  tests: [
    { markerId: 1, code: '10231', text: 'CMP' },
    { markerId: 2, code: '899', text: 'HbA1c' },
  ],
  stat: true,
  collectedAt: null,
  diagnoses: ['R73.09'],
  insurance: null,
  aoeAnswers: [{ markerId: 2, questionId: 7, question: 'Fasting?', answer: 'Y|es' }],
  notes: 'Call patient\nbefore draw',
  ...overrides,
});

const parse = (text: string) => Hl7Message.parse(text);

describe('buildOrderMessage', () => {
  it('builds an ORM^O01 (2.3): MSH, PID, PV1, then ORC/OBR per test with DG1, AOE OBX and NTE', () => {
    const message = parse(buildOrderMessage(input()));
    expect(message.segments.map((segment) => segment.name)).toEqual(['MSH', 'PID', 'PV1', 'ORC', 'OBR', 'NTE', 'DG1', 'ORC', 'OBR', 'DG1', 'OBX']);
    const msh = message.getSegment('MSH')!;
    expect([msh.getField(9).toString(), msh.getField(10).toString(), msh.getField(11).toString(), msh.getField(12).toString()]).toEqual([
      'ORM^O01',
      'LF0001',
      'P',
      '2.3',
    ]);
    expect([msh.getComponent(5, 1), msh.getComponent(6, 1)]).toEqual(['QDX', 'QDX-PHX']);
    // A delimiter in a name is escaped, not a new component.
    expect(message.getSegment('PID')!.getField(5).toString()).toBe("O'Neil\\S\\Okonkwo^Marguerite");
    expect(message.getSegment('PID')!.getComponent(8, 1)).toBe('F');
    const orcs = message.getAllSegments('ORC');
    expect(orcs.map((orc) => [orc.getComponent(1, 1), orc.getComponent(2, 1), orc.getComponent(12, 1), orc.getComponent(12, 2)])).toEqual([
      ['NW', ORDER_ID, '1234567893', 'Castellanos'],
      ['NW', ORDER_ID, '1234567893', 'Castellanos'],
    ]);
    const obrs = message.getAllSegments('OBR');
    expect(obrs.map((obr) => [obr.getField(4).toString(), obr.getComponent(16, 1), obr.getComponent(27, 6), obr.getComponent(11, 1)])).toEqual([
      ['10231^CMP^L', '1234567893', 'S', 'L'],
      ['899^HbA1c^L', '1234567893', 'S', 'L'],
    ]);
    expect(message.getSegment('DG1')!.getField(3).toString()).toBe('R73.09^^I10');
    const aoe = message.getSegment('OBX')!;
    expect([aoe.getField(3).toString(), unescapeValue(aoe.getComponent(5, 1)), aoe.getComponent(11, 1)]).toEqual(['AOE-7^Fasting?^L', 'Y|es', 'O']);
    expect(message.getSegment('NTE')!.getComponent(3, 1)).toBe('Call patient before draw');
  });

  it('builds an OML^O21 (2.5.1) with TQ1 priority, IN1/GT1 when billed to insurance, and ORC CA for a cancellation', () => {
    const addressing = { ...input().addressing, version: '2.5.1' as const, orderMessageType: 'OML^O21' as const };
    const message = parse(
      buildOrderMessage(
        input({
          addressing,
          control: 'cancel',
          fillerNumber: 'ACC-9',
          stat: false,
          insurance: { payorCode: 'AETNA-60054', memberId: 'W987654321', relationship: 'Spouse', guarantor: null },
        }),
      ),
    );
    expect(message.getSegment('MSH')!.getField(9).toString()).toBe('OML^O21^OML_O21');
    expect(message.segments.map((segment) => segment.name).slice(0, 7)).toEqual(['MSH', 'PID', 'PV1', 'IN1', 'GT1', 'ORC', 'TQ1']);
    const in1 = message.getSegment('IN1')!;
    expect([in1.getComponent(3, 1), in1.getComponent(17, 1), in1.getComponent(36, 1)]).toEqual(['AETNA-60054', 'Spouse', 'W987654321']);
    expect(message.getSegment('GT1')!.getField(3).toString()).toBe("O'Neil\\S\\Okonkwo^Marguerite");
    expect(message.getSegment('ORC')!.getComponent(1, 1)).toBe('CA');
    expect(message.getSegment('ORC')!.getComponent(3, 1)).toBe('ACC-9');
    expect(message.getSegment('TQ1')!.getComponent(9, 1)).toBe('R');
    // OBR-27 (quantity/timing) is 2.3's place for the priority; 2.5.1 has TQ1.
    expect(message.getSegment('OBR')!.toString().split('|').length).toBeLessThan(28);
  });
});

describe('reading what a lab sends', () => {
  const ORU = [
    'MSH|^~\\&|QDX|QDX-PHX|LABFLOW|LF|20261128120000||ORU^R01^ORU_R01|C-1|P|2.5.1||||||UNICODE UTF-8',
    'PID|1||P1||OKONKWO^MARGUERITE',
    `ORC|RE|${ORDER_ID}^LABFLOW|ACC-9^QDX||CM`,
    `OBR|1|${ORDER_ID}^LABFLOW|ACC-9^QDX|10231^CMP^L|||||||||||||||||||||F`,
    'OBX|1|NM|GLU-7^Glucose^L^2345-7^Glucose^LN||104|mg/dL|70-99|H|||F|||20261128110000+0000',
    'OBX|2|SN|2160-0^Creatinine^LN||<^0.5|mg/dL|0.6-1.2|L|||C',
    'OBX|3|CWE|5778-6^Color^LN||YEL^Yellow^L||||||F',
    'OBX|4|TX|8251-1^Note^LN||Hemolysed\\T\\lipemic~second line||||||F',
    'OBX|5|NM|9999-9^Unknown^LN||1||||||F',
    'OBX|6|NM|1742-6^ALT^LN||||||||X',
    'OBX|7|ED|PDF^Report^L||QDX^application^pdf^Base64^JVBERi0=||||||F',
  ].join('\r');
  const markers: ResultMarker[] = [
    {
      id: 11,
      name: 'Glucose',
      slug: 'glucose',
      providerId: 'q-glu',
      unit: 'mg/dL',
      referenceMin: 70,
      referenceMax: 99,
      criticalLow: null,
      criticalHigh: null,
      referenceRangesBySex: null,
      loinc: { code: '2345-7', slug: 'glucose' },
    },
    {
      id: 12,
      name: 'Creatinine',
      slug: 'creatinine',
      providerId: 'q-cre',
      unit: 'mg/dL',
      referenceMin: null,
      referenceMax: null,
      criticalLow: null,
      criticalHigh: null,
      referenceRangesBySex: null,
      loinc: { code: '2160-0', slug: 'creatinine' },
    },
    {
      id: 13,
      name: 'Color',
      slug: 'color',
      providerId: 'q-col',
      unit: null,
      referenceMin: null,
      referenceMax: null,
      criticalLow: null,
      criticalHigh: null,
      referenceRangesBySex: null,
      loinc: { code: '5778-6', slug: 'color' },
    },
    {
      id: 14,
      name: 'Note',
      slug: 'note',
      providerId: 'q-note',
      unit: null,
      referenceMin: null,
      referenceMax: null,
      criticalLow: null,
      criticalHigh: null,
      referenceRangesBySex: null,
      loinc: { code: '8251-1', slug: 'note' },
    },
    {
      id: 15,
      name: 'ALT',
      slug: 'alt',
      providerId: 'q-alt',
      unit: 'U/L',
      referenceMin: null,
      referenceMax: null,
      criticalLow: null,
      criticalHigh: null,
      referenceRangesBySex: null,
      loinc: { code: '1742-6', slug: 'alt' },
    },
  ];

  it('maps OBX rows by the lab’s code or LOINC into results: values, units, ranges, flags, missing, the PDF', () => {
    const { message } = decodeInbound(Buffer.from(ORU));
    const reported = readReportedOrders(message);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ placer: ORDER_ID, filler: 'ACC-9', orderStatus: 'CM', resultStatus: 'F' });
    const mapped = mapObservations(reported, markers, { 11: { code: 'GLU-7', text: 'Glucose' } }, { labName: 'Quest', sampleId: null });
    expect(mapped.status).toBe('final');
    const bySlug = new Map(mapped.results.map((result) => [result.slug, result]));
    expect(bySlug.get('glucose')).toMatchObject({
      result: '104',
      type: 'numeric',
      unit: 'mg/dL',
      min_range_value: 70,
      max_range_value: 99,
      is_above_max_range: true,
      interpretation: 'abnormal',
      timestamp: '2026-11-28T11:00:00.000Z',
    });
    expect(bySlug.get('creatinine')).toMatchObject({ result: '<0.5', type: 'range', is_below_min_range: true });
    expect(bySlug.get('color')).toMatchObject({ result: 'Yellow', type: 'coded_value' });
    expect(bySlug.get('note')).toMatchObject({ result: 'Hemolysed&lipemic\nsecond line', type: 'comment' });
    expect(mapped.missingResults.map((missing) => missing.slug)).toEqual(['alt']);
    expect(mapped.unmapped).toEqual(['9999-9^Unknown']);
    expect(mapped.pdfBase64).toBe('JVBERi0=');
    // The creatinine row is a corrected result (OBX-11 C): the report counts as a correction.
    expect(factOf(reported)).toEqual({ low: 'completed', detail: null, correction: true });
  });

  it('stores beside the sealed body what the hand-off needs: placer (order ids only) and filler numbers in order, and the fact', () => {
    const twoOrders = [
      ORU,
      'ORC|RE|NOT-AN-ORDER-ID^LABFLOW|ACC-10^QDX||A',
      'OBR|1|NOT-AN-ORDER-ID^LABFLOW|ACC-10^QDX|10231^CMP^L|||||||||||||||||||||P',
      'OBX|1|NM|2345-7^Glucose^LN||98|mg/dL|70-99|N|||P',
    ].join('\r');
    const { message } = decodeInbound(Buffer.from(twoOrders));
    const keys = matchKeysOf(readReportedStatuses(message));
    expect(keys).toEqual({
      placers: [ORDER_ID.toLowerCase()],
      fillers: ['ACC-9', 'ACC-10'],
      fact: { low: 'partial_results', detail: null, correction: true },
    });
    // Reading each OBX for its status only gives the fact the full reading gives.
    expect(keys.fact).toEqual(factOf(readReportedOrders(message)));
  });

  it('keeps the latest observation per marker: a correction replaces the final, a preliminary report is partial', () => {
    const observation = (value: string, status: string) => ({
      valueType: 'NM',
      code: '2345-7',
      text: 'Glucose',
      system: 'LN',
      altCode: '',
      altSystem: '',
      value,
      units: 'mg/dL',
      referenceRange: '',
      abnormalFlags: [],
      status,
      observedAt: null,
      performingLab: null,
      mediaSubtype: null,
    });
    const partial = mapObservations([{ resultStatus: 'P', observations: [observation('90', 'P')] }], markers, {}, { labName: 'Quest', sampleId: null });
    expect(partial.status).toBe('partial');
    // A preliminary report is partial even when ORC-5 already says completed.
    expect(
      factOf([{ placer: ORDER_ID, filler: null, orderControl: 'RE', orderStatus: 'CM', resultStatus: 'P', observations: [observation('90', 'P')], notes: [] }]),
    ).toEqual({ low: 'partial_results', detail: null, correction: false });
    expect(factOf([{ placer: ORDER_ID, filler: null, orderControl: 'SC', orderStatus: 'IP', resultStatus: null, observations: [], notes: [] }])).toBeNull();
    expect(
      factOf([{ placer: ORDER_ID, filler: null, orderControl: 'OC', orderStatus: 'CA', resultStatus: null, observations: [], notes: ['Specimen leaked'] }]),
    ).toEqual({ low: 'do_not_process', detail: 'Specimen leaked' });
    const corrected = mapObservations(
      [
        { resultStatus: 'F', observations: [observation('95', 'F')] },
        { resultStatus: 'C', observations: [observation('97', 'C')] },
      ],
      markers,
      {},
      { labName: 'Quest', sampleId: 'S-1' },
    );
    expect(corrected.status).toBe('final');
    expect(corrected.results).toEqual([expect.objectContaining({ slug: 'glucose', result: '97', source_sample_id: 'S-1' })]);
  });

  it('keeps the final values when a preliminary report arrives after the final one, and the later of two preliminary ones', () => {
    const observation = (code: string, value: string, status: string, observedAt: string | null = null) => ({
      valueType: 'NM',
      code,
      text: '',
      system: 'LN',
      altCode: '',
      altSystem: '',
      value,
      units: 'mg/dL',
      referenceRange: '',
      abnormalFlags: [],
      status,
      observedAt: observedAt ? new Date(observedAt) : null,
      performingLab: null,
      mediaSubtype: null,
    });
    const context = { labName: 'Quest', sampleId: null };
    const late = mapObservations(
      [
        { resultStatus: 'F', observations: [observation('2345-7', '95', 'F'), observation('2160-0', '0.9', 'F')] },
        { resultStatus: 'P', observations: [observation('2345-7', '90', 'P')] },
      ],
      markers,
      {},
      context,
    );
    expect(late.status).toBe('final');
    expect(late.results.map((result) => [result.slug, result.result])).toEqual([
      ['glucose', '95'],
      ['creatinine', '0.9'],
    ]);
    // The second preliminary report (observed later) arrives first.
    const outOfOrder = mapObservations(
      [
        {
          resultStatus: 'P',
          observations: [observation('2345-7', '92', 'P', '2026-11-28T10:00:00Z'), observation('2160-0', '0.8', 'P', '2026-11-28T10:00:00Z')],
        },
        { resultStatus: 'P', observations: [observation('2345-7', '88', 'P', '2026-11-28T09:00:00Z')] },
      ],
      markers,
      {},
      context,
    );
    expect(outOfOrder.status).toBe('partial');
    expect(outOfOrder.results.map((result) => [result.slug, result.result])).toEqual([
      ['glucose', '92'],
      ['creatinine', '0.8'],
    ]);
  });

  it('refuses bad headers with AR and the reason', () => {
    const refusal = (text: string | Buffer) => {
      try {
        decodeInbound(typeof text === 'string' ? Buffer.from(text) : text);
      } catch (error) {
        if (error instanceof Hl7Refusal) return [error.ackCode, error.message];
        throw error;
      }
      return null;
    };
    expect(refusal('PID|1')).toEqual(['AR', 'The message does not start with an MSH segment.']);
    expect(refusal('MSH#^~\\&#X')?.[1]).toContain('Field separator');
    expect(refusal('MSH|^~|X|Y')?.[1]).toContain('Encoding characters');
    expect(refusal('MSH|^~\\&|A|B|C|D|20260101||ORU^R01|C1|P|2.5.1||||||BIG5')?.[1]).toContain('Character set');
    expect(refusal(Buffer.concat([Buffer.from('MSH|^~\\&|A|B|C|D|20260101||ORU^R01|C1|P|2.5.1\rNTE|1||'), Buffer.from([0xff])]))?.[1]).toContain(
      'not valid UTF-8',
    );
    expect(refusal('MSH|^~\\&|A|B|C|D|20260101||ORU^R01||P|2.5.1')?.[1]).toContain('MSH-10');
    expect(refusal('MSH|^~\\&|A|B|C|D|20260101||ORU^R01|C1|P|9.9')?.[1]).toContain('version');
    // 8859/1 is read as such: é is one byte there.
    const latin = decodeInbound(Buffer.concat([Buffer.from('MSH|^~\\&|A|B|C|D|20260101||ORU^R01|C1|P|2.5.1||||||8859/1\rNTE|1||Ren'), Buffer.from([0xe9])]));
    expect(latin.message.getSegment('NTE')!.getComponent(3, 1)).toBe('René');
  });

  it('answers with an ACK that echoes the control id and carries the reason in MSA-3 and ERR', () => {
    const { header } = decodeInbound(Buffer.from(ORU));
    const ack = parse(
      buildAck({ to: header, controlId: null, ackCode: 'AE', text: 'Try again', errorCode: '207', ownControlId: 'A1', at: new Date('2026-11-28T12:00:00Z') }),
    );
    expect(ack.getSegment('MSH')!.getField(9).toString()).toBe('ACK^R01^ACK');
    expect([ack.getSegment('MSH')!.getComponent(5, 1), ack.getSegment('MSH')!.getComponent(6, 1)]).toEqual(['QDX', 'QDX-PHX']);
    expect(ack.getSegment('MSA')!.toString()).toBe('MSA|AE|C-1|Try again');
    expect(ack.getSegment('ERR')!.getComponent(3, 1)).toBe('207');
  });
});

describe('MLLP framing and encoding', () => {
  it('reads frames split across reads and several in one read, and refuses an oversized one', () => {
    const framer = new MllpFramer(20);
    const both = Buffer.concat([frame('MSH|one'), frame('MSH|two')]);
    expect(framer.push(both.subarray(0, 5))).toEqual([]);
    expect(framer.pending).toBe(true);
    expect(framer.push(both.subarray(5)).map((event) => (event.kind === 'message' ? event.bytes.toString() : event.kind))).toEqual(['MSH|one', 'MSH|two']);
    const big = frame(`MSH|${'x'.repeat(40)}`);
    expect(framer.push(big.subarray(0, 30))).toEqual([]);
    expect(framer.push(Buffer.concat([big.subarray(30), frame('MSH|after')])).map((event) => event.kind)).toEqual(['oversized', 'message']);
  });

  it('escapes and unescapes the delimiters, and reads HL7 timestamps', () => {
    expect(escapeValue('a|b^c&d~e\\f')).toBe('a\\F\\b\\S\\c\\T\\d\\R\\e\\E\\f');
    expect(unescapeValue(escapeValue('a|b^c&d~e\\f'))).toBe('a|b^c&d~e\\f');
    expect(unescapeValue('caf\\XC3A9\\')).toBe('café');
    expect(parseHl7Timestamp('20261128110000-0500')?.toISOString()).toBe('2026-11-28T16:00:00.000Z');
    expect(parseHl7Timestamp('20261128')?.toISOString()).toBe('2026-11-28T00:00:00.000Z');
    expect(parseHl7Timestamp('yesterday')).toBeNull();
  });
});
