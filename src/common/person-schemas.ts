import { z } from 'zod';
import { isoDate, nullable } from './schemas';

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

export const requiredText = (description: string) =>
  z.string().trim().min(1, { message: 'Must not be empty.' }).describe(description);

export const personName = (description: string) =>
  requiredText(description).regex(PERSON_NAME, {
    message: 'Must start with a letter and contain only letters, spaces, apostrophes, hyphens, periods or commas.',
  });

export const phoneNumber = z
  .string()
  .trim()
  .refine((value) => E164.test(value) || US_PHONE.test(value), {
    message: 'Must be an E.164 phone number (+15551234567) or a US number such as (555) 123-4567.',
  })
  .describe('Phone number: E.164 (+15551234567) or US formatted ((555) 123-4567).');

export const email = z.string().trim().email({ message: 'Must be a valid e-mail address.' });

/** Today's date (UTC) as YYYY-MM-DD; computed per request, not once at load. */
const todayUtc = () => new Date().toISOString().slice(0, 10);

export const dateOfBirth = isoDate
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
