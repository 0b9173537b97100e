import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../common/openapi';
import { addressSchema, requiredText } from '../common/person-schemas';
import { TEXT_LIMITS } from '../common/schemas';

/** The SDK's PayorCodeExternalProvider: clearinghouses that give payors ids of their own. */
export const PAYOR_ID_PROVIDERS = ['change_healthcare', 'availity', 'stedi', 'waystar', 'claim_md'] as const;

const provider = z.enum(PAYOR_ID_PROVIDERS);
const insuranceName = z.string().trim().min(1).max(200);
const providerPayorId = z.string().trim().min(1).max(100);

/** `GET /v3/insurance/search/payor`. */
export class PayorSearchQuery extends createZodDto(
  z.object({
    insurance_name: insuranceName.optional().describe('Part of the payor name or of one of its aliases, or its payor code; any case.'),
    provider: provider.optional(),
    provider_payor_id: providerPayorId.optional().describe("The payor's id at `provider` (team payors that were given one)."),
  }),
) {}

/** `POST /v3/insurance/search/payor` (the SDK's deprecated PayorSearchRequest: `provider_id`). */
export class PayorSearchBody extends createZodDto(
  z.object({
    insurance_name: insuranceName.nullish(),
    provider: provider.nullish(),
    provider_id: providerPayorId.nullish(),
  }),
) {}

/** `POST /v3/payor` (the SDK's CreatePayorBody). */
export class CreatePayorDto extends createZodDto(
  z
    .object({
      name: requiredText('The payor name.', TEXT_LIMITS.name),
      address: addressSchema,
      provider: provider.nullish(),
      provider_payor_id: providerPayorId.nullish(),
    })
    .refine((body) => (body.provider == null) === (body.provider_payor_id == null), {
      message: 'Give provider and provider_payor_id together.',
      path: ['provider_payor_id'],
    }),
) {}

/** The SDK's ClientFacingPayor and ClientFacingPayorSearchResponse. */
export interface PayorView {
  payor_code: string;
  name: string;
  aliases: string[];
  org_address: { first_line: string; second_line?: string; country: string; zip: string; city: string; state: string };
  source: 'platform' | 'team';
}

const payorFields = {
  name: z.string(),
  aliases: z.array(z.string()),
  org_address: z.object({
    first_line: z.string(),
    second_line: z.string().optional(),
    country: z.string(),
    zip: z.string(),
    city: z.string(),
    state: z.string(),
  }),
  source: z.enum(['platform', 'team']),
};

/** A payor as the routes answer it (`PayorView`), documented in /openapi.json. */
export class PayorResponse extends responseDto(z.object({ payor_code: z.string(), ...payorFields })) {}

export class PayorListResponse extends responseDto(z.array(z.object({ payor_code: z.string(), ...payorFields }))) {}

/** The older search's payors: the code as `code`. */
export class DeprecatedPayorListResponse extends responseDto(z.array(z.object({ code: z.string(), ...payorFields }))) {}
