/**
 * labflow's users, physicians, insurances, orders, samples and appointments as FHIR R4
 * resources: pure translation of decrypted rows, no I/O. US Core's Patient, Practitioner,
 * Coverage, ServiceRequest and Specimen elements are filled where labflow holds them;
 * docs/fhir.md says which it cannot.
 */
import type { Address, Appointment, Coverage, Extension, Meta, Patient, Practitioner, Reference, ServiceRequest, Specimen } from '@medplum/fhirtypes';
import type { Physician } from '../orders/order.entities';
import type { UserInfo } from '../users/user-info.dto';
import type { AppointmentRow, CoverageRow, OrderRow, PatientRow } from './fhir-read-model';

export const SYSTEMS = {
  clientUserId: 'https://labflow.dev/fhir/client-user-id',
  labTest: 'https://labflow.dev/fhir/lab-test',
  biomarker: 'https://labflow.dev/fhir/biomarker',
  orderId: 'https://labflow.dev/fhir/order-id',
  sampleId: 'https://labflow.dev/fhir/sample-id',
  payor: 'https://labflow.dev/fhir/payor-code',
  npi: 'http://hl7.org/fhir/sid/us-npi',
  loinc: 'http://loinc.org',
  ucum: 'http://unitsofmeasure.org',
  snomed: 'http://snomed.info/sct',
  icd10cm: 'http://hl7.org/fhir/sid/icd-10-cm',
  v2_0074: 'http://terminology.hl7.org/CodeSystem/v2-0074',
  v2_0203: 'http://terminology.hl7.org/CodeSystem/v2-0203',
  observationCategory: 'http://terminology.hl7.org/CodeSystem/observation-category',
  interpretation: 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation',
  subscriberRelationship: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship',
  coverageClass: 'http://terminology.hl7.org/CodeSystem/coverage-class',
  dataAbsentReason: 'http://terminology.hl7.org/CodeSystem/data-absent-reason',
} as const;

export const US_CORE = {
  patient: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient',
  practitioner: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitioner',
  coverage: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-coverage',
  serviceRequest: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-servicerequest',
  specimen: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-specimen',
  diagnosticReportLab: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-diagnosticreport-lab',
  observationLab: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-observation-lab',
} as const;

export const patientRef = (userId: string): Reference<Patient> => ({ reference: `Patient/${userId}` });

export function meta(lastUpdated: Date, profile?: string): Meta {
  return { lastUpdated: lastUpdated.toISOString(), ...(profile ? { profile: [profile] } : {}) };
}

function address(value: UserInfo['address'] | undefined): Address[] | undefined {
  if (!value) return undefined;
  return [
    {
      use: 'home',
      line: [value.first_line, ...(value.second_line ? [value.second_line] : [])],
      city: value.city,
      state: value.state,
      postalCode: value.zip,
      country: value.country,
    },
  ];
}

const OMB = 'urn:oid:2.16.840.1.113883.6.238';

/** labflow's (Junction's) races as OMB race categories (CDC Race & Ethnicity); `other` is text only. */
const RACES: Record<string, { code: string; display: string } | undefined> = {
  african_american_or_black: { code: '2054-5', display: 'Black or African American' },
  asian: { code: '2028-9', display: 'Asian' },
  indigenous_native_american_alaska_native: { code: '1002-5', display: 'American Indian or Alaska Native' },
  pacific_islander_or_hawaiian: { code: '2076-8', display: 'Native Hawaiian or Other Pacific Islander' },
  white_caucasian: { code: '2106-3', display: 'White' },
};

/** Ethnicities as OMB ethnicity categories; those that are neither (ashkenazi_jewish, other) are text only. */
const ETHNICITIES: Record<string, { code: string; display: string } | undefined> = {
  hispanic: { code: '2135-2', display: 'Hispanic or Latino' },
  non_hispanic: { code: '2186-5', display: 'Not Hispanic or Latino' },
};

/** US Core's race or ethnicity extension: the OMB category where there is one, and the text (required). */
function ombExtension(kind: 'race' | 'ethnicity', value: string | null | undefined): Extension[] {
  if (!value) return [];
  const category = (kind === 'race' ? RACES : ETHNICITIES)[value];
  return [
    {
      url: `http://hl7.org/fhir/us/core/StructureDefinition/us-core-${kind}`,
      extension: [
        ...(category ? [{ url: 'ombCategory', valueCoding: { system: OMB, ...category } }] : []),
        { url: 'text', valueString: category?.display ?? value.replace(/_/g, ' ') },
      ],
    },
  ];
}

/**
 * A user as a Patient: the team's client_user_id as its identifier, and the user's info
 * (`PATCH /v2/user/{id}/info`) when given; without it, only the fallback birth date.
 */
export function patientResource(row: PatientRow, info: UserInfo | null, fallbackBirthDate: string | null): Patient {
  const birthDate = info?.dob ?? fallbackBirthDate ?? undefined;
  return {
    resourceType: 'Patient',
    id: row.id,
    meta: meta(row.last_updated, US_CORE.patient),
    ...(info && (info.race || info.ethnicity) ? { extension: [...ombExtension('race', info.race), ...ombExtension('ethnicity', info.ethnicity)] } : {}),
    identifier: [{ system: SYSTEMS.clientUserId, value: row.client_user_id }],
    active: true,
    ...(info
      ? {
          name: [{ use: 'official', family: info.last_name, given: [info.first_name] }],
          telecom: [
            ...(info.phone_number ? [{ system: 'phone' as const, value: info.phone_number }] : []),
            ...(info.email ? [{ system: 'email' as const, value: info.email }] : []),
          ],
          gender: info.gender,
          address: address(info.address),
        }
      : {}),
    ...(birthDate ? { birthDate } : {}),
  };
}

/** An ordering physician as a Practitioner, identified (and id'd) by NPI. */
export function practitionerResource(physician: Physician, lastUpdated: Date): Practitioner {
  return {
    resourceType: 'Practitioner',
    id: physician.npi,
    meta: meta(lastUpdated, US_CORE.practitioner),
    identifier: [{ system: SYSTEMS.npi, value: physician.npi }],
    active: true,
    name: [{ family: physician.last_name, given: [physician.first_name] }],
    ...(physician.email ? { telecom: [{ system: 'email', value: physician.email }] } : {}),
  };
}

/** Junction's relationship to the insured, as subscriber-relationship codes. */
const RELATIONSHIPS: Record<string, string> = { self: 'self', spouse: 'spouse', child: 'child', other: 'other' };

/** An insurance as a Coverage of its user, paid by its payor. */
export function coverageResource(row: CoverageRow, memberId: string): Coverage {
  const relationship = RELATIONSHIPS[row.relationship.toLowerCase()] ?? 'other';
  return {
    resourceType: 'Coverage',
    id: row.id,
    meta: meta(row.created_at, US_CORE.coverage),
    identifier: [{ type: { coding: [{ system: SYSTEMS.v2_0203, code: 'MB', display: 'Member Number' }] }, value: memberId }],
    status: 'active',
    subscriberId: memberId,
    beneficiary: patientRef(row.user_id),
    relationship: { coding: [{ system: SYSTEMS.subscriberRelationship, code: relationship }], text: row.relationship },
    payor: [{ identifier: { system: SYSTEMS.payor, value: row.payor_code }, display: row.payor_name ?? row.payor_code }],
    order: row.is_primary ? 1 : 2,
    ...(row.group_id ? { class: [{ type: { coding: [{ system: SYSTEMS.coverageClass, code: 'group', display: 'Group' }] }, value: row.group_id }] } : {}),
  };
}

/** An order's top-level status as a request status. */
export function requestStatus(status: string): ServiceRequest['status'] {
  switch (status) {
    case 'completed':
      return 'completed';
    case 'cancelled':
    case 'failed':
      return 'revoked';
    default:
      return 'active';
  }
}

/** The request statuses labflow's order statuses map to, for the `status` search. */
export function orderStatusesOf(requestStatuses: string[]): string[] {
  const all = ['received', 'collecting_sample', 'sample_with_lab', 'completed', 'cancelled', 'failed'];
  return all.filter((status) => requestStatuses.includes(requestStatus(status) as string));
}

export function labTestCode(row: Pick<OrderRow, 'lab_test_id' | 'lab_test_name'>) {
  return { coding: [{ system: SYSTEMS.labTest, code: row.lab_test_id, display: row.lab_test_name ?? undefined }], text: row.lab_test_name ?? 'Lab test' };
}

/** An order as the ServiceRequest for its lab test. */
export function serviceRequestResource(row: OrderRow): ServiceRequest {
  return {
    resourceType: 'ServiceRequest',
    id: row.id,
    meta: meta(row.updated_at, US_CORE.serviceRequest),
    identifier: [{ system: SYSTEMS.orderId, value: row.id }],
    status: requestStatus(row.status),
    intent: 'order',
    category: [{ coding: [{ system: SYSTEMS.snomed, code: '108252007', display: 'Laboratory procedure' }] }],
    priority: row.priority ? 'urgent' : 'routine',
    code: labTestCode(row),
    subject: patientRef(row.user_id),
    authoredOn: row.created_at.toISOString(),
    ...(row.physician?.npi ? { requester: { reference: `Practitioner/${row.physician.npi}` } } : {}),
    ...(row.icd_codes?.length ? { reasonCode: row.icd_codes.map((code) => ({ coding: [{ system: SYSTEMS.icd10cm, code }] })) } : {}),
    ...(row.sample_id ? { specimen: [{ reference: `Specimen/${row.id}` }] } : {}),
    ...(row.clinical_notes ? { note: [{ text: row.clinical_notes }] } : {}),
  };
}

/** The SNOMED CT specimen types of the lab tests' sample types. */
const SPECIMEN_TYPES: Record<string, { code: string; display: string }> = {
  serum: { code: '119364003', display: 'Serum specimen' },
  dried_blood_spot: { code: '440500007', display: 'Dried blood spot specimen' },
  whole_blood: { code: '258580003', display: 'Whole blood specimen' },
  urine: { code: '122575003', display: 'Urine specimen' },
  saliva: { code: '119342007', display: 'Saliva specimen' },
};

/** An order's sample as a Specimen (same id as the order). */
export function specimenResource(row: OrderRow & { sample_id: string }): Specimen {
  const type = row.sample_type ? SPECIMEN_TYPES[row.sample_type] : undefined;
  return {
    resourceType: 'Specimen',
    id: row.id,
    meta: meta(row.last_updated, US_CORE.specimen),
    identifier: [{ system: SYSTEMS.sampleId, value: row.sample_id }],
    accessionIdentifier: { system: SYSTEMS.sampleId, value: row.sample_id },
    status: 'available',
    type: type ? { coding: [{ system: SYSTEMS.snomed, ...type }], text: row.sample_type ?? undefined } : { text: row.sample_type ?? 'unknown' },
    subject: patientRef(row.user_id),
    request: [{ reference: `ServiceRequest/${row.id}` }],
    ...(row.date_received ? { receivedTime: row.date_received.toISOString() } : {}),
    ...(row.date_collected ? { collection: { collectedDateTime: row.date_collected.toISOString() } } : {}),
  };
}

/** An appointment's status as FHIR's; a pending one (no slot yet) is proposed. */
export function appointmentStatus(status: string): Appointment['status'] {
  switch (status) {
    case 'pending':
      return 'proposed';
    case 'reserved':
      return 'pending';
    case 'confirmed':
      return 'booked';
    case 'in_progress':
      return 'checked-in';
    case 'completed':
      return 'fulfilled';
    default:
      return 'cancelled';
  }
}

export function appointmentStatusesOf(fhirStatuses: string[]): string[] {
  return ['pending', 'reserved', 'confirmed', 'in_progress', 'completed', 'cancelled'].filter((status) =>
    fhirStatuses.includes(appointmentStatus(status) as string),
  );
}

/** A draw appointment (walk-in or at-home) as an Appointment for its order. */
export function appointmentResource(row: AppointmentRow): Appointment {
  const status = appointmentStatus(row.status);
  // FHIR's app-3: only a proposed, cancelled or waitlisted appointment may lack its times.
  const timed = row.start_at && row.end_at;
  return {
    resourceType: 'Appointment',
    id: row.id,
    meta: meta(row.updated_at),
    status: timed || status === 'cancelled' ? status : 'proposed',
    serviceType: [{ text: row.type === 'at_home_phlebotomy' ? 'At-home phlebotomy' : row.type === 'phlebotomy' ? 'Phlebotomy' : row.type }],
    appointmentType: { text: row.type },
    description: `Sample collection (${row.provider})`,
    ...(timed ? { start: row.start_at!.toISOString(), end: row.end_at!.toISOString() } : {}),
    created: row.created_at.toISOString(),
    basedOn: [{ reference: `ServiceRequest/${row.order_id}` }],
    participant: [
      { actor: patientRef(row.user_id), status: 'accepted' },
      ...(row.location?.formatted ? [{ actor: { display: row.location.formatted }, status: 'accepted' as const }] : []),
    ],
  };
}
