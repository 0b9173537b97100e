import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { isoDate, nullable } from '../common/schemas';

/**
 * Request and response schemas of the insurance routes (spec §Insurance, §4.1). They validate
 * the input (422 in the FastAPI shape through ZodRequestPipe) and generate the OpenAPI document.
 *
 * Objects strip unknown keys, as the Junction SDK does; a known key with a wrong type is a 422.
 * Every string is trimmed before its rules run, so "  " counts as empty.
 */

/** Limit of Address.access_notes (spec §Limits). */
export const ACCESS_NOTES_MAX = 1000;

/**
 * Enums are non-exhaustive in the spec: that is a promise about what the service may *return*
 * in the future, so clients must tolerate new values. On input we accept only the values we know
 * and store, so a typo ("self", "Child") is caught at the door instead of being persisted as a
 * relationship that no lab or payor understands.
 */
export const RELATIONSHIPS = ['Self', 'Spouse', 'Other'] as const;
export const GENDERS = ['female', 'male', 'other', 'unknown'] as const;

/** E.164 (+15551234567). */
const E164 = /^\+[1-9]\d{6,14}$/;
/** US formatted, optional +1 / 1 prefix: (555) 123-4567, 555-123-4567, 555.123.4567, 5551234567. */
const US_PHONE = /^(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-]?)\d{3}[\s.-]?\d{4}$/;
/**
 * Patient names go to labs, which refuse digits and symbols: letters (any script, with
 * combining marks), spaces, apostrophes, hyphens, periods and commas; must start with a letter.
 */
const PERSON_NAME = /^[\p{L}\p{M}][\p{L}\p{M}\s'\u2019.,-]*$/u;


const requiredText = (description: string) =>
  z.string().trim().min(1, { message: 'Must not be empty.' }).describe(description);

const personName = (description: string) =>
  requiredText(description).regex(PERSON_NAME, {
    message: 'Must start with a letter and contain only letters, spaces, apostrophes, hyphens, periods or commas.',
  });

const phoneNumber = z
  .string()
  .trim()
  .refine((value) => E164.test(value) || US_PHONE.test(value), {
    message: 'Must be an E.164 phone number (+15551234567) or a US number such as (555) 123-4567.',
  })
  .describe('Phone number: E.164 (+15551234567) or US formatted ((555) 123-4567).');

const email = z.string().trim().email({ message: 'Must be a valid e-mail address.' });

/** Today's date (UTC) as YYYY-MM-DD; computed per request, not once at load. */
const todayUtc = () => new Date().toISOString().slice(0, 10);

const dateOfBirth = isoDate
  .refine((value) => value <= todayUtc(), { message: 'Date of birth must not be in the future.' })
  .describe('Date of birth, YYYY-MM-DD; a real calendar date, not in the future.');

export const addressSchema = z
  .object({
    first_line: requiredText('First line of the street address.'),
    second_line: nullable(z.string().trim())
      .default('')
      .describe('Second line of the street address (apartment, suite); empty string when absent.'),
    country: requiredText('Country, e.g. "US".'),
    zip: requiredText('ZIP or postal code.'),
    city: requiredText('City.'),
    state: requiredText('State or region, e.g. "CA".'),
    access_notes: nullable(
      z.string().trim().max(ACCESS_NOTES_MAX, { message: `Must be at most ${ACCESS_NOTES_MAX} characters.` }),
    )
      .optional()
      .describe(`Notes on how to reach the address, at most ${ACCESS_NOTES_MAX} characters.`),
  })
  .describe('A postal address.');

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

const nonNegativeInt = (description: string) =>
  z.number().int().min(0, { message: 'Must be 0 or more.' }).nullable().optional().describe(description);

export const guarantorDetailsSchema = z
  .object({
    first_name: personName('First name of the guarantor.'),
    last_name: personName('Last name of the guarantor.'),
    address: addressSchema,
    phone_number: phoneNumber,
    household_income: nonNegativeInt('Yearly household income, whole currency units.'),
    household_size: nonNegativeInt('Number of people in the household.'),
    email: nullable(email).optional().describe('E-mail address of the guarantor.'),
  })
  .describe('The person financially responsible for the patient.');

export const createInsuranceSchema = z.object({
  payor_code: requiredText('Payor (insurance company) code, e.g. "60054" for Aetna; must be in the payor registry.'),
  member_id: requiredText('Member id on the insurance card.'),
  group_id: nullable(z.string().trim())
    .optional()
    .describe('Group number on the insurance card; empty, null or absent means none.'),
  relationship: z.enum(RELATIONSHIPS).describe('Relationship of the patient to the insured: Self, Spouse or Other.'),
  insured: personDetailsSchema,
  guarantor: guarantorDetailsSchema.nullable().optional(),
  is_primary: z.boolean().default(true).describe('Whether this is the primary insurance (default true).'),
});

export class CreateInsuranceDto extends createZodDto(createInsuranceSchema) {}

export class InsuranceUserParams extends createZodDto(
  z.object({ user_id: z.uuid().describe('The user id returned at user creation.') }),
) {}

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
    is_primary: queryBoolean
      .optional()
      .describe('true: latest primary insurance; false: latest secondary one; omitted: latest of either.'),
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

export class ClientFacingInsuranceDto extends createZodDto(clientFacingInsuranceSchema) {}

export type Address = z.output<typeof addressSchema>;
export type PersonDetails = z.output<typeof personDetailsSchema>;
export type GuarantorDetails = z.output<typeof guarantorDetailsSchema>;
export type ClientFacingInsurance = z.output<typeof clientFacingInsuranceSchema>;
