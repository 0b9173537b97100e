import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../common/openapi';
import { atMost, nullable, TEXT_LIMITS } from '../common/schemas';
import { addressSchema, dateOfBirth, email, GENDERS, guarantorDetailsSchema, personName, phoneNumber, requiredText } from '../common/person-schemas';

/**
 * Request and response schemas of the insurance routes (spec §Insurance, §4.1). They validate
 * the input (422 in the FastAPI shape through ZodRequestPipe) and generate the OpenAPI document.
 *
 * Objects strip unknown keys, as the Junction SDK does; a known key with a wrong type is a 422.
 * Every string is trimmed before its rules run, so "  " counts as empty.
 */

/**
 * Enums are non-exhaustive in the spec: that is a promise about what the service may *return*
 * in the future, so clients must tolerate new values. On input we accept only the values we know
 * and store, so a typo ("self", "Child") is caught at the door instead of being persisted as a
 * relationship that no lab or payor understands.
 */
export const RELATIONSHIPS = ['Self', 'Spouse', 'Other'] as const;
export const personDetailsSchema = z
  .object({
    first_name: personName('First name, as on the insurance card.'),
    last_name: personName('Last name, as on the insurance card.'),
    gender: z.enum(GENDERS).describe('Gender: female, male, other or unknown.'),
    address: addressSchema,
    dob: dateOfBirth,
    email: email.describe('E-mail address.'),
    phone_number: phoneNumber,
  })
  .describe('The insured person (policy holder).');

export const createInsuranceSchema = z.object({
  payor_code: requiredText('Payor (insurance company) code, e.g. "60054" for Aetna; must be in the payor registry.', TEXT_LIMITS.code),
  member_id: requiredText('Member id on the insurance card.', TEXT_LIMITS.code),
  group_id: nullable(z.string().trim().max(TEXT_LIMITS.code, atMost(TEXT_LIMITS.code)))
    .optional()
    .describe('Group number on the insurance card; empty, null or absent means none.'),
  relationship: z.enum(RELATIONSHIPS).describe('Relationship of the patient to the insured: Self, Spouse or Other.'),
  insured: personDetailsSchema,
  guarantor: guarantorDetailsSchema.nullable().optional(),
  is_primary: z.boolean().default(true).describe('Whether this is the primary insurance (default true).'),
});

export class CreateInsuranceDto extends createZodDto(createInsuranceSchema) {}

export class InsuranceUserParams extends createZodDto(z.object({ user_id: z.uuid().describe('The user id returned at user creation.') })) {}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

/**
 * A boolean in a query string, read as FastAPI reads one (true/false, 1/0, yes/no, on/off, any
 * case); anything else stays a string and fails as "Input should be a valid boolean". Built with
 * preprocess rather than stringbool so the OpenAPI document shows a boolean.
 */
const queryBoolean = z.preprocess((value) => {
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return value;
}, z.boolean());

export class LatestInsuranceQuery extends createZodDto(
  z.object({
    // Omitted means no filter: the SDK sends is_primary only when the caller sets it, so an
    // omitted value asks for the latest insurance whatever its rank.
    is_primary: queryBoolean.optional().describe('true: latest primary insurance; false: latest secondary one; omitted: latest of either.'),
  }),
) {}

// ---- Response (ClientFacingInsurance) ----

const addressOut = z.object({
  first_line: z.string(),
  second_line: nullable(z.string()),
  country: z.string(),
  zip: z.string(),
  city: z.string(),
  state: z.string(),
  access_notes: nullable(z.string()).optional(),
});

const personOut = z.object({
  first_name: z.string(),
  last_name: z.string(),
  gender: z.enum(GENDERS),
  address: addressOut,
  dob: z.string(),
  email: z.string(),
  phone_number: z.string(),
});

const guarantorOut = z.object({
  first_name: z.string(),
  last_name: z.string(),
  address: addressOut,
  phone_number: z.string(),
  household_income: z.number().int().nullable().optional(),
  household_size: z.number().int().nullable().optional(),
  email: nullable(z.string()).optional(),
});

export const clientFacingInsuranceSchema = z.object({
  member_id: z.string(),
  payor_code: z.string(),
  relationship: z.enum(RELATIONSHIPS),
  insured: personOut,
  company: z.object({ name: z.string(), address: addressOut }).describe('The payor, resolved from payor_code.'),
  group_id: nullable(z.string()),
  guarantor: guarantorOut.nullable(),
  is_primary: z.boolean(),
});

export class ClientFacingInsuranceDto extends responseDto(clientFacingInsuranceSchema) {}

export type Address = z.output<typeof addressSchema>;
export type PersonDetails = z.output<typeof personDetailsSchema>;
export type GuarantorDetails = z.output<typeof guarantorDetailsSchema>;
export type ClientFacingInsurance = z.output<typeof clientFacingInsuranceSchema>;
