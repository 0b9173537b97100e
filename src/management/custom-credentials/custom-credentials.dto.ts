import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../../common/openapi';
import { nextCursorParam } from '../../common/keyset-cursor';
import { uuidParam } from '../common/params';
import { repeatable } from '../../common/schemas';

const provider = z
  .string()
  .regex(/^[a-z0-9_]{1,64}$/)
  .describe('Provider slug, e.g. fitbit.');

export class ListCustomCredentialsQuery extends createZodDto(
  z.object({ team_id: uuidParam.optional(), provider: provider.optional(), next_cursor: nextCursorParam }),
) {}

/** Upsert on (team, provider): omitted fields keep their value, null clears one. */
export class UpsertCustomCredentialDto extends createZodDto(
  z.strictObject({
    team_id: uuidParam,
    provider,
    client_id: z.string().min(1).max(1024).nullish(),
    client_secret: z.string().min(1).max(4096).nullish().describe('Stored encrypted; never returned (see client_secret_hash).'),
    redirect_url_override: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullish(),
    details: z
      .record(z.string().max(64), z.union([z.string().max(4096), z.number(), z.boolean(), z.null()]))
      .refine((value) => Object.keys(value).length <= 50, { message: 'At most 50 detail fields.' })
      .nullish()
      .describe('Provider-specific settings; stored encrypted, not returned.'),
  }),
) {}

export class DeleteCustomCredentialsQuery extends createZodDto(
  z.object({ credential_id: repeatable(uuidParam, { min: 1, max: 100 }).describe('Repeat to delete several.') }),
) {}

const credential = z.object({
  id: z.string(),
  team_id: z.string(),
  provider: z.string(),
  client_id: z.string().nullable(),
  client_secret_hash: z.string().nullable().describe('SHA-256 (hex) of client_secret.'),
  redirect_url_override: z.string().nullable(),
  source: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export class CustomCredentialDto extends responseDto(credential) {}
export class CustomCredentialListDto extends responseDto(z.object({ credentials: z.array(credential), next_cursor: z.string().nullable() })) {}

export type CustomCredentialView = z.input<typeof credential>;
