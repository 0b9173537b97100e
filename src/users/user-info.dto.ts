import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../common/openapi';
import { addressSchema, dateOfBirth, email, GENDERS, guarantorDetailsSchema, personName, phoneNumber } from '../common/person-schemas';

/** The SDK's Race, Ethnicity, SexualOrientation and GenderIdentity. */
export const RACES = [
  'african_american_or_black',
  'asian',
  'indigenous_native_american_alaska_native',
  'other',
  'pacific_islander_or_hawaiian',
  'white_caucasian',
] as const;
export const ETHNICITIES = ['hispanic', 'non_hispanic', 'ashkenazi_jewish', 'other'] as const;
export const SEXUAL_ORIENTATIONS = ['lesbian_gay_or_homosexual', 'heterosexual_or_straight', 'bisexual', 'dont_know', 'other'] as const;
export const GENDER_IDENTITIES = [
  'male',
  'female',
  'female_to_male_ftm_transgender_male_trans_man',
  'male_to_female_mtf_transgender_female_trans_woman',
  'genderqueer',
  'other',
] as const;

/** `PATCH /v2/user/{user_id}/info` (the SDK's UserInfoCreateRequest). */
export const userInfoSchema = z.object({
  first_name: personName('First name.'),
  last_name: personName('Last name.'),
  email: email.describe('E-mail address.'),
  phone_number: phoneNumber,
  gender: z.enum(GENDERS).describe('Gender: female, male, other or unknown.'),
  dob: dateOfBirth,
  address: addressSchema,
  medical_proxy: guarantorDetailsSchema.nullish().describe('Who may act for the patient.'),
  race: z.enum(RACES).nullish(),
  ethnicity: z.enum(ETHNICITIES).nullish(),
  sexual_orientation: z.enum(SEXUAL_ORIENTATIONS).nullish(),
  gender_identity: z.enum(GENDER_IDENTITIES).nullish(),
});

export class UserInfoDto extends responseDto(userInfoSchema) {}

export class UserInfoParams extends createZodDto(z.object({ user_id: z.uuid().describe('The user id returned at user creation.') })) {}

/** What is stored and answered: the request as validated, optional parts left out when absent. */
export type UserInfo = z.output<typeof userInfoSchema>;
