import { z } from 'zod';
import { atMost, isoDate, nullable, TEXT_LIMITS } from './schemas';

/**
 * Request schemas of a person and their address, shared by every route that takes one (insurance,
 * user info): names a lab accepts, phone numbers, e-mail, date of birth, US-style addresses. Every
 * string is trimmed before its rules run, so "  " counts as empty.
 */

/** Limit of Address.access_notes (spec §Limits). */
export const ACCESS_NOTES_MAX = 1000;

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

/** Non-empty text of at most `max` characters (after trimming). */
export const requiredText = (description: string, max: number = TEXT_LIMITS.line) =>
  z.string().trim().min(1, { message: 'Must not be empty.' }).max(max, atMost(max)).describe(description);

export const personName = (description: string) =>
  requiredText(description, TEXT_LIMITS.name).regex(PERSON_NAME, {
    message: 'Must start with a letter and contain only letters, spaces, apostrophes, hyphens, periods or commas.',
  });

/** Longer than any phone number the formats below accept, so the OpenAPI document shows a bound. */
const PHONE_MAX = 32;

export const phoneNumber = z
  .string()
  .trim()
  .max(PHONE_MAX, atMost(PHONE_MAX))
  .refine((value) => E164.test(value) || US_PHONE.test(value), {
    message: 'Must be an E.164 phone number (+15551234567) or a US number such as (555) 123-4567.',
  })
  .describe('Phone number: E.164 (+15551234567) or US formatted ((555) 123-4567).');

/** RFC 5321's limit on an address's length. */
const EMAIL_MAX = 320;

export const email = z.string().trim().max(EMAIL_MAX, atMost(EMAIL_MAX)).email({ message: 'Must be a valid e-mail address.' });

/** Today's date (UTC) as YYYY-MM-DD; computed per request, not once at load. */
const todayUtc = () => new Date().toISOString().slice(0, 10);

export const dateOfBirth = isoDate
  .refine((value) => value <= todayUtc(), { message: 'Date of birth must not be in the future.' })
  .describe('Date of birth, YYYY-MM-DD; a real calendar date, not in the future.');

export const addressSchema = z
  .object({
    first_line: requiredText('First line of the street address.', TEXT_LIMITS.line),
    second_line: nullable(z.string().trim().max(TEXT_LIMITS.line, atMost(TEXT_LIMITS.line)))
      .default('')
      .describe('Second line of the street address (apartment, suite); empty string when absent.'),
    country: requiredText('Country, e.g. "US".', TEXT_LIMITS.code),
    zip: requiredText('ZIP or postal code.', TEXT_LIMITS.code),
    city: requiredText('City.', TEXT_LIMITS.name),
    state: requiredText('State or region, e.g. "CA".', TEXT_LIMITS.code),
    access_notes: nullable(
      z
        .string()
        .trim()
        .max(ACCESS_NOTES_MAX, { message: `Must be at most ${ACCESS_NOTES_MAX} characters.` }),
    )
      .optional()
      .describe(`Notes on how to reach the address, at most ${ACCESS_NOTES_MAX} characters.`),
  })
  .describe('A postal address.');

const nonNegativeInt = (description: string) => z.number().int().min(0, { message: 'Must be 0 or more.' }).nullable().optional().describe(description);

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
