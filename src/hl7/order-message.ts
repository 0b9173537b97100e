import type { Hl7OrderMessageType, Hl7Version } from './hl7.entities';
import { ENCODING_CHARACTERS, field, hl7Date, hl7Timestamp, segment } from './hl7-encoding';

/** Who sends and who receives, as the lab account's HL7 interface names them. */
export interface Hl7Addressing {
  sendingApplication: string;
  sendingFacility: string;
  receivingApplication: string;
  receivingFacility: string;
  version: Hl7Version;
  orderMessageType: Hl7OrderMessageType;
}

export interface OrderMessagePatient {
  /** labflow's id of the patient (the order's user): PID-3. */
  id: string;
  firstName: string;
  lastName: string;
  /** YYYY-MM-DD */
  dob: string;
  gender: string;
  phone: string | null;
  address: { firstLine: string; secondLine: string | null; city: string; state: string; zip: string; country: string } | null;
}

export interface OrderMessageInsurance {
  payorCode: string | null;
  memberId: string | null;
  /** Self, Spouse, Other… (IN1-17). */
  relationship: string | null;
  guarantor: {
    firstName: string;
    lastName: string;
    phone: string | null;
    address: { firstLine: string; city: string; state: string; zip: string; country: string };
  } | null;
}

/** One orderable test, with the lab's code for it. */
export interface OrderMessageTest {
  markerId: number;
  code: string;
  text: string;
}

export interface OrderMessageInput {
  /** `new`: ORC-1 NW; `cancel`: ORC-1 CA (cancel request). */
  control: 'new' | 'cancel';
  controlId: string;
  sentAt: Date;
  addressing: Hl7Addressing;
  /** MSH-11: P production, T training (sandbox orders). */
  processingId: 'P' | 'T';
  orderId: string;
  /** The lab's accession, when the lab sent one back (a cancellation names it). */
  fillerNumber: string | null;
  patient: OrderMessagePatient;
  physician: { npi: string; firstName: string; lastName: string } | null;
  tests: OrderMessageTest[];
  stat: boolean;
  collectedAt: Date | null;
  /** ICD-10-CM codes. */
  diagnoses: string[];
  /** Present when the bill goes to insurance: IN1 and GT1. */
  insurance: OrderMessageInsurance | null;
  /** Ask-at-order-entry answers, by the marker they belong to. */
  aoeAnswers: Array<{ markerId: number; questionId: number; question: string | null; answer: string }>;
  notes: string | null;
}

/**
 * An order or its cancellation as the lab's interface takes it: ORM^O01 (2.3) or OML^O21 (2.5.1
 * LOI), segments separated by CR. Pure: the same input gives the same text.
 *
 * MSH, PID, PV1, [IN1, GT1], then per test ORC, [TQ1 in 2.5.1], OBR, [NTE on the first], DG1…,
 * OBX… (its ask-at-order-entry answers). Every ORC/OBR carries labflow's order id as placer
 * number (ORC-2, OBR-2) and as placer group (ORC-4): one requisition, several tests.
 */
export function buildOrderMessage(input: OrderMessageInput): string {
  const { addressing, version } = { addressing: input.addressing, version: input.addressing.version };
  const oml = addressing.orderMessageType === 'OML^O21';
  const messageType = oml ? field('OML', 'O21', 'OML_O21') : version === '2.5.1' ? field('ORM', 'O01', 'ORM_O01') : field('ORM', 'O01');
  const segments: string[] = [
    [
      'MSH',
      ENCODING_CHARACTERS,
      field(addressing.sendingApplication),
      field(addressing.sendingFacility),
      field(addressing.receivingApplication),
      field(addressing.receivingFacility),
      hl7Timestamp(input.sentAt),
      '',
      messageType,
      field(input.controlId),
      input.processingId,
      version,
      '',
      '',
      'AL',
      'NE',
      '',
      'UNICODE UTF-8',
    ].join('|'),
    pid(input.patient),
    segment('PV1', ['1', 'O']),
  ];
  if (input.insurance) segments.push(...insuranceSegments(input.insurance, input.patient));
  const provider = input.physician ? field(input.physician.npi, input.physician.lastName, input.physician.firstName, '', '', '', '', '', 'NPI') : '';
  const priority = input.stat ? 'S' : 'R';
  input.tests.forEach((test, index) => {
    segments.push(
      segment('ORC', [
        input.control === 'new' ? 'NW' : 'CA',
        field(input.orderId, addressing.sendingApplication),
        input.fillerNumber ? field(input.fillerNumber, addressing.receivingApplication) : '',
        field(input.orderId, addressing.sendingApplication),
        '',
        '',
        version === '2.3' ? field('', '', '', '', '', priority) : '',
        '',
        hl7Timestamp(input.sentAt),
        '',
        '',
        provider,
      ]),
    );
    if (oml) segments.push(segment('TQ1', ['1', '', '', '', '', '', '', '', priority]));
    segments.push(
      segment('OBR', [
        String(index + 1),
        field(input.orderId, addressing.sendingApplication),
        input.fillerNumber ? field(input.fillerNumber, addressing.receivingApplication) : '',
        field(test.code, test.text, 'L'),
        '',
        '',
        input.collectedAt ? hl7Timestamp(input.collectedAt) : '',
        '',
        '',
        '',
        // Specimen action: O, collected before the order reaches the lab; L, the lab collects.
        input.collectedAt ? 'O' : 'L',
        '',
        '',
        '',
        '',
        provider,
        ...(version === '2.3' ? ['', '', '', '', '', '', '', '', '', '', field('', '', '', '', '', priority)] : []),
      ]),
    );
    if (index === 0 && input.notes) segments.push(segment('NTE', ['1', 'L', field(input.notes)]));
    input.diagnoses.forEach((code, position) =>
      segments.push(segment('DG1', [String(position + 1), version === '2.3' ? 'I10' : '', field(code, '', 'I10'), '', '', 'W'])),
    );
    input.aoeAnswers
      .filter((answer) => answer.markerId === test.markerId)
      .forEach((answer, position) =>
        segments.push(
          segment('OBX', [
            String(position + 1),
            'ST',
            field(`AOE-${answer.questionId}`, answer.question ?? `Question ${answer.questionId}`, 'L'),
            '',
            field(answer.answer),
            '',
            '',
            '',
            '',
            '',
            'O',
          ]),
        ),
      );
  });
  return segments.join('\r');
}

const SEX: Record<string, string> = { female: 'F', f: 'F', male: 'M', m: 'M', other: 'O', o: 'O' };

function pid(patient: OrderMessagePatient): string {
  const address = patient.address;
  return segment('PID', [
    '1',
    '',
    field(patient.id, '', '', 'LABFLOW', 'PI'),
    '',
    field(patient.lastName, patient.firstName),
    '',
    hl7Date(patient.dob),
    SEX[patient.gender.trim().toLowerCase()] ?? 'U',
    '',
    '',
    address ? field(address.firstLine, address.secondLine, address.city, address.state, address.zip, address.country) : '',
    '',
    patient.phone ? field(patient.phone) : '',
  ]);
}

function insuranceSegments(insurance: OrderMessageInsurance, patient: OrderMessagePatient): string[] {
  const in1: Array<string> = ['1', '', field(insurance.payorCode), field(insurance.payorCode)];
  // IN1-17 relationship to the insured, IN1-36 the policy (member) number.
  while (in1.length < 16) in1.push('');
  in1.push(field(insurance.relationship ?? 'Self'));
  while (in1.length < 35) in1.push('');
  in1.push(field(insurance.memberId));
  const guarantor = insurance.guarantor;
  const gt1 = guarantor
    ? segment('GT1', [
        '1',
        '',
        field(guarantor.lastName, guarantor.firstName),
        '',
        field(guarantor.address.firstLine, '', guarantor.address.city, guarantor.address.state, guarantor.address.zip, guarantor.address.country),
        guarantor.phone ? field(guarantor.phone) : '',
      ])
    : segment('GT1', ['1', '', field(patient.lastName, patient.firstName)]);
  return [segment('IN1', in1), gt1];
}
