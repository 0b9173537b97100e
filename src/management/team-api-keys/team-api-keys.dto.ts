import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../../common/openapi';
import { nextCursorParam } from '../../common/keyset-cursor';
import { uuidParam } from '../common/params';
import { repeatable } from '../../common/schemas';

export class ListTeamApiKeysQuery extends createZodDto(z.object({ team_id: uuidParam.optional(), next_cursor: nextCursorParam })) {}

export class CreateTeamApiKeyDto extends createZodDto(z.strictObject({ label: z.string().trim().min(1).max(255), team_id: uuidParam })) {}

export class RevokeTeamApiKeysQuery extends createZodDto(
  z.object({ api_key_id: repeatable(uuidParam, { min: 1, max: 100 }).describe('Repeat to revoke several keys.') }),
) {}

const apiKey = z.object({
  id: z.string(),
  label: z.string(),
  team_id: z.string(),
  created_at: z.string(),
  key_prefix: z.string().describe('The readable start of the key, to recognise it; the key itself is never shown again.'),
});

export class TeamApiKeyListDto extends responseDto(z.object({ api_keys: z.array(apiKey), next_cursor: z.string().nullable() })) {}
export class CreatedTeamApiKeyDto extends responseDto(
  z.object({ id: z.string(), label: z.string(), value: z.string(), team_id: z.string(), created_at: z.string() }),
) {}

export type TeamApiKeyView = z.input<typeof apiKey>;
