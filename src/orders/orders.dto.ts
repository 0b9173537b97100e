import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { isoDate, repeatable, partnerEventId } from '../common/schemas';
import { BILLING_TYPES, COLLECTION_METHODS } from '../lab-tests/lab-catalog.entities';
import { ORDER_LOW_LEVEL_STATUSES, type OrderLowLevelStatus, sourceOf } from '../../workflows/order/order-statuses';
import { RESULT_INTERPRETATIONS, RESULT_TYPES } from '../results';

const text = (max = 255) => z.string().trim().min(1).max(max);
const optionalText = (max = 255) => z.string().max(max).nullish();

/** Junction's PatientDetailsWithValidation (extra demographic fields are accepted and kept). */
export const patientDetails = z.object({
  first_name: text(),
  last_name: text(),
  dob: isoDate,
  gender: z.string().trim().min(1).max(32),
  phone_number: text(32),
  email: z.email().max(320),
  medical_proxy: z.record(z.string(), z.unknown()).nullish(),
  race: z.string().max(64).nullish(),
  ethnicity: z.string().max(64).nullish(),
  sexual_orientation: z.string().max(64).nullish(),
  gender_identity: z.string().max(64).nullish(),
  household_income: z.number().int().nullish(),
  household_size: z.number().int().nullish(),
});
export type PatientDetails = z.infer<typeof patientDetails>;

/** Junction's PatientAddressWithValidation, plus access_notes (at most 1000 characters). */
export const patientAddress = z.object({
  receiver_name: optionalText(),
  first_line: text(),
  second_line: optionalText(),
  city: text(),
  state: text(64),
  zip: text(16),
  country: text(64),
  phone_number: optionalText(32),
  access_notes: z.string().max(1000).nullish(),
});
export type PatientAddress = z.infer<typeof patientAddress>;

/** Junction's ShippingAddressWithValidation (test kits): the patient address, with a receiver and phone required. */
export const shippingAddress = patientAddress.omit({ access_notes: true }).extend({
  receiver_name: text(),
  phone_number: text(32),
});
export type ShippingAddress = z.infer<typeof shippingAddress>;

/** The first bytes of each image type, as base64 (JPEG FF D8 FF; PNG 89 50 4E 47). */
const IMAGE_MAGIC = { 'image/jpeg': '/9j/', 'image/png': 'iVBORw' } as const;

/**
 * An image in a request body: base64 content and its type (Junction's Jpeg | Png). The content
 * must start as its type does: a requisition embeds some of these images.
 */
const image = z
  .object({
    // The request's body limit (BODY_LIMIT_BYTES, 1 MiB by default) bounds it first: raise that
    // for phone photos of insurance cards.
    content: z.base64().min(1).max(16_000_000),
    content_type: z.enum(['image/jpeg', 'image/png']),
  })
  .refine((value) => value.content.startsWith(IMAGE_MAGIC[value.content_type]), {
    message: 'content is not an image of content_type',
    path: ['content'],
  });
export type Base64Image = z.infer<typeof image>;

export const physician = z.object({
  first_name: text(),
  last_name: text(),
  npi: z
    .string()
    .trim()
    .regex(/^\d{10}$/, { message: 'npi must be 10 digits' }),
  email: z.email().max(320).nullish(),
  licensed_states: z.array(z.string().max(8)).max(60).nullish(),
  /** Printed on the requisition; kept apart from the order (order_requisition_inputs). */
  signature_image: image.nullish(),
});

/**
 * The health insurance an order is billed to (Junction's HealthInsuranceCreateRequest). Every
 * field is optional, as in Junction; it is stored encrypted and named by the order's
 * health_insurance_id, and printed on the requisition.
 */
/**
 * An ICD-10-CM diagnosis code as labs and payors take it: a letter, a digit and a third character,
 * then optionally (after a dot, which may be left out) up to four more (E11.9, R73.09, Z00.00).
 * Only the shape is checked — labflow carries no copy of the code set — so a typo such as
 * "fatigue" or "E11-9" is refused here rather than by the lab or the payor weeks later. Stored in
 * capitals.
 */
const ICD_10_CM = /^[A-Z][0-9][0-9A-Z](\.?[0-9A-Z]{1,4})?$/;
const icdCode = z
  .string()
  .trim()
  .max(16)
  .transform((code) => code.toUpperCase())
  .refine((code) => ICD_10_CM.test(code), {
    message: 'not an ICD-10-CM code: a letter, a digit and a third character, then optionally a dot and up to four more (E11.9, R73.09)',
  });

export const healthInsurance = z.object({
  front_image: image.nullish(),
  back_image: image.nullish(),
  patient_signature_image: image.nullish(),
  subjective: z.string().max(5000).nullish(),
  assessment_plan: z.string().max(5000).nullish(),
  payor_code: z.string().trim().min(1).max(64).nullish(),
  insurance_id: z.string().trim().min(1).max(64).nullish(),
  /** Self, Spouse, Other (non-exhaustive in the SDK: any short text). */
  responsible_relationship: z.string().trim().min(1).max(32).nullish(),
  responsible_details: z
    .object({
      first_name: text(),
      last_name: text(),
      address: z.object({
        first_line: text(),
        second_line: optionalText(),
        country: text(64),
        zip: text(16),
        city: text(),
        state: text(64),
        access_notes: z.string().max(1000).nullish(),
      }),
      phone_number: text(32),
      phone_type: optionalText(32),
    })
    .nullish(),
  diagnosis_codes: z.array(icdCode).max(50).nullish(),
});
export type HealthInsurance = z.infer<typeof healthInsurance>;

/** Consents travel camelCase on the wire (Junction's Consent). */
/** The SDK's ConsentType: what the patient agreed to. */
export const CONSENT_TYPES = [
  'terms-of-use',
  'telehealth-informed-consent',
  'mobile-terms-and-conditions',
  'notice-of-privacy-practices',
  'privacy-policy',
  'hipaa-authorization',
] as const;

/** A consent the patient gave (camelCase on the wire, as Junction's Consent). Printed on the requisition and passed to the lab. */
export const consent = z.object({
  consentType: z.enum(CONSENT_TYPES),
  version: z.string().trim().max(64).nullish(),
  timeOfConsent: z.iso.datetime({ offset: true }).nullish().describe('When the patient consented (ISO 8601 date and time).'),
});
export type Consent = z.output<typeof consent>;

const orderSet = z.object({
  lab_test_ids: z.array(z.uuid()).max(50).nullish(),
  add_on: z
    .object({
      marker_ids: z.array(z.number().int()).max(200).nullish(),
      provider_ids: z.array(z.string().max(64)).max(200).nullish(),
    })
    .nullish(),
  lab_account_id: z.uuid().nullish(),
});

const clinicalNotes = z.string().max(1000, { message: 'clinical_notes must be at most 1000 characters' }).nullish();

/** Junction's AoEAnswer: the answer to one ask-at-order-entry question about a marker. */
const aoeAnswer = z.object({
  marker_id: z.number().int(),
  question_id: z.number().int(),
  answer: z.string().trim().min(1).max(1000),
});
export type AoeAnswer = z.infer<typeof aoeAnswer>;

const createOrderFields = {
  user_id: z.uuid(),
  lab_test_id: z.uuid().nullish(),
  order_set: orderSet.nullish(),
  collection_method: z.enum(COLLECTION_METHODS).nullish(),
  physician: physician.nullish(),
  health_insurance: healthInsurance.nullish(),
  priority: z.boolean().nullish(),
  billing_type: z.enum(BILLING_TYPES).nullish(),
  icd_codes: z.array(icdCode).max(50).nullish(),
  consents: z.array(consent).max(20).nullish(),
  activate_by: isoDate.nullish(),
  /** Answers to the lab's ask-at-order-entry questions, for markers of the ordered test. */
  aoe_answers: z.array(aoeAnswer).max(200).nullish(),
  passthrough: z.string().max(2000).nullish(),
  lab_account_id: z.uuid().nullish(),
  creator_member_id: z.string().max(255).nullish(),
  clinical_notes: clinicalNotes,
  patient_details: patientDetails,
  patient_address: patientAddress,
};

/** `POST /v3/order` and `POST /v3/order/create` (CreateOrderRequestCompatible). */
export class CreateOrderDto extends createZodDto(z.object(createOrderFields)) {}

/** `POST /v3/order/testkit`: an unregistered (registrable) kit. */
export class CreateTestkitOrderDto extends createZodDto(
  z.object({
    user_id: z.uuid(),
    lab_test_id: z.uuid(),
    shipping_details: shippingAddress,
    passthrough: z.string().max(2000).nullish(),
    lab_account_id: z.uuid().nullish(),
  }),
) {}

/** `POST /v3/order/testkit/register`. */
export class RegisterTestkitDto extends createZodDto(
  z.object({
    user_id: z.uuid().nullish(),
    sample_id: text(64),
    patient_details: patientDetails,
    patient_address: patientAddress,
    physician: physician.nullish(),
    health_insurance: healthInsurance.nullish(),
    consents: z.array(consent).max(20).nullish(),
  }),
) {}

/** `POST /v3/order/import`: a sample already collected; lab accounts may still be PENDING. */
export class ImportOrderDto extends createZodDto(
  z.object({
    user_id: z.uuid(),
    billing_type: z.enum(BILLING_TYPES),
    order_set: orderSet,
    collection_method: z.enum(COLLECTION_METHODS),
    physician: physician.nullish(),
    patient_details: patientDetails,
    patient_address: patientAddress.extend({ receiver_name: text() }),
    sample_id: text(64),
    lab_account_id: z.uuid().nullish(),
    clinical_notes: clinicalNotes,
  }),
) {}

/** `POST /v3/order/resend_events`: every filter optional; none means all of the team's orders. */
export class ResendEventsDto extends createZodDto(
  z
    .object({
      order_ids: z.array(z.uuid()).max(1000).optional(),
      start_at: z.iso.datetime({ offset: true }).optional(),
      end_at: z.iso.datetime({ offset: true }).optional(),
    })
    .refine((body) => !body.start_at || !body.end_at || body.start_at <= body.end_at, {
      message: 'start_at must not be after end_at.',
      path: ['start_at'],
    }),
) {}

export class OrderIdParams extends createZodDto(z.object({ order_id: z.uuid() })) {}

/** `PATCH /v3/order/{id}`. */
export class PatchOrderDto extends createZodDto(z.object({ activate_by: isoDate.nullable() })) {}

/** The values a list filter may be given (repeated, or under its `[]` spelling too). */
const filterValues = <T extends z.ZodType>(item: T) => repeatable(item, { max: 200 }).optional();

const dateOrDateTime = z.union([z.iso.datetime({ offset: true }), z.iso.datetime(), isoDate]);

/** `GET /v3/orders`. */
export class ListOrdersQuery extends createZodDto(
  z.object({
    search_input: z.string().max(255).optional(),
    start_date: dateOrDateTime.optional(),
    end_date: dateOrDateTime.optional(),
    updated_start_date: dateOrDateTime.optional(),
    updated_end_date: dateOrDateTime.optional(),
    status: filterValues(z.enum(ORDER_LOW_LEVEL_STATUSES)),
    'status[]': filterValues(z.enum(ORDER_LOW_LEVEL_STATUSES)),
    order_key: z.enum(['created_at', 'patient_name', 'last_status']).optional(),
    order_direction: z.enum(['asc', 'desc']).optional(),
    order_type: filterValues(z.enum(COLLECTION_METHODS)),
    'order_type[]': filterValues(z.enum(COLLECTION_METHODS)),
    is_critical: z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .optional(),
    interpretation: z.enum(RESULT_INTERPRETATIONS).optional(),
    user_id: z.uuid().optional(),
    patient_name: z.string().max(255).optional(),
    order_ids: filterValues(z.uuid()),
    'order_ids[]': filterValues(z.uuid()),
    order_transaction_id: z.uuid().optional(),
    // current: the order is active; scheduled: its activate_by day (UTC) is still ahead.
    order_activation_types: filterValues(z.enum(['current', 'scheduled'])),
    'order_activation_types[]': filterValues(z.enum(['current', 'scheduled'])),
    shipping_recipient_name: z.string().max(255).optional(),
    page: z.coerce.number().int().min(1).default(1),
    size: z.coerce.number().int().min(1).max(500).default(50),
  }),
) {}

/** `POST /v3/order/{id}/test` query (sandbox). `delay` is in seconds. */
/** `GET /v3/order/{id}/labels/pdf`: how many labels (one per tube) and when the sample was (or will be) collected. */
export class LabelsQuery extends createZodDto(
  z.object({
    number_of_labels: z.coerce.number().int().min(1).max(50).default(1).describe('Labels to print, one per tube (1 to 50; default 1).'),
    collection_date: dateOrDateTime.describe('When the sample is collected, printed on every label (a date, or a date and time).'),
  }),
) {}

export class SimulateQuery extends createZodDto(
  z.object({
    final_status: z.string().max(128).optional(),
    delay: z.coerce.number().min(0).max(3600).optional(),
  }),
) {}

/** `POST /v3/order/{id}/test` body (SimulationFlags); the SDK may send none at all. */
export const simulateBody = z.object({
  interpretation: z.enum(RESULT_INTERPRETATIONS).nullish(),
  result_types: z.array(z.enum(RESULT_TYPES)).max(10).nullish(),
  has_missing_results: z.boolean().nullish(),
});
export type SimulateBody = z.infer<typeof simulateBody>;

/**
 * The statuses each partner reports: another is refused by validation, with the 422 list every
 * other bad value gets (and the document lists them).
 */
const reportedBy = (accepts: (status: OrderLowLevelStatus) => boolean) =>
  z.enum(ORDER_LOW_LEVEL_STATUSES.filter(accepts) as [OrderLowLevelStatus, ...OrderLowLevelStatus[]]);

/** `POST /v3/webhooks/courier/{courier}`: one tracking update. */
export class CourierTrackingDto extends createZodDto(
  z.object({
    tracking_number: text(64),
    status: reportedBy((status) => sourceOf(status) === 'courier').describe('A courier tracking status.'),
    status_detail: z.string().max(255).nullish(),
    occurred_at: z.string().max(64).nullish(),
    event_id: partnerEventId,
  }),
) {}

/** `POST /v3/webhooks/lab/{lab}`: a lab event about an order (the requisition names the order id). */
export class LabEventDto extends createZodDto(
  z.object({
    order_id: z.uuid(),
    status: reportedBy((status) => sourceOf(status) !== 'workflow').describe(
      'A status the lab (or a courier, or the draw) reports; not one the order workflow makes.',
    ),
    status_detail: z.string().max(255).nullish(),
    notes: z.string().trim().min(1).max(2000).nullish().describe("The lab's note on the order: shown as the order's `notes` (replacing an earlier one)."),
    interpretation: z.enum(RESULT_INTERPRETATIONS).nullish(),
    has_missing_results: z.boolean().nullish(),
    result_types: z
      .array(z.enum(RESULT_TYPES))
      .max(10)
      .nullish()
      .describe('The sandbox lab: the result types it reports (numeric, range, comment, coded_value).'),
    event_id: partnerEventId,
  }),
) {}

export class PartnerParams extends createZodDto(z.object({ partner: z.string().regex(/^[a-z0-9_-]{1,40}$/) })) {}

/** Why an order is recreated (`POST /v3/order/{order_id}/recreate`). */
export const ORDER_UPDATE_REASONS = ['INCORRECT_LAB', 'PATIENT_DETAILS_CHANGED', 'OTHER'] as const;

/**
 * `POST /v3/order/{order_id}/recreate` (labflow; Junction's SDK has no such endpoint): a new
 * order in the same order transaction, origin `recreation`, with the original's user, lab test,
 * patient details, physician and notes; the original is cancelled while it still can be.
 */
export class RecreateOrderDto extends createZodDto(
  z
    .object({
      update_reason: z
        .enum(ORDER_UPDATE_REASONS)
        .describe(
          "Why the order is recreated. INCORRECT_LAB: a fresh lab account at the lab test's lab is resolved (never the original order's); 400 when there is none. Other reasons keep the original account unless lab_account_id names another.",
        ),
      lab_account_id: z.uuid().nullish().describe("The lab account of the new order (optional; with INCORRECT_LAB it must differ from the original order's)."),
    })
    .describe('Recreates an order: same order transaction, origin `recreation`.'),
) {}
