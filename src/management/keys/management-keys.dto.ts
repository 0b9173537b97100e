import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../../common/openapi';
import { MANAGEMENT_KEY_ROLES } from '../../tenancy/entities';
import { nextCursorParam } from '../../common/keyset-cursor';
import { uuidParam } from '../common/params';

const label = z.string().trim().min(1).max(255);
const teamRoleBindings = z.array(z.strictObject({ team_id: uuidParam })).max(100);

export class ManagementKeyParams extends createZodDto(z.object({ org_id: uuidParam, key_id: uuidParam })) {}

export class ListManagementKeysQuery extends createZodDto(
  z.object({
    team_id: uuidParam.optional().describe('Only keys bound to this team.'),
    role: z.enum(MANAGEMENT_KEY_ROLES).optional(),
    next_cursor: nextCursorParam,
  }),
) {}

export class CreateManagementKeyDto extends createZodDto(
  z.strictObject({
    label,
    role: z.enum(MANAGEMENT_KEY_ROLES),
    team_role_bindings: teamRoleBindings.optional().describe('Required (at least one) for team_admin keys; none for org_admin.'),
  }),
) {}

export class PatchManagementKeyDto extends createZodDto(z.strictObject({ label: label.optional(), team_role_bindings: teamRoleBindings.optional() })) {}

const managementKey = z.object({
  id: z.string(),
  label: z.string(),
  created_at: z.string(),
  role: z.enum(MANAGEMENT_KEY_ROLES),
  team_role_bindings: z.array(z.object({ team_id: z.string() })),
  creator: z.object({ type: z.literal('management_key'), id: z.string() }).nullable(),
});

export class ManagementKeyDto extends responseDto(managementKey) {}
export class CreatedManagementKeyDto extends responseDto(managementKey.extend({ key: z.string().describe('The key itself: shown only in this response.') })) {}
export class ManagementKeyListDto extends responseDto(z.object({ data: z.array(managementKey), next_cursor: z.string().nullable() })) {}

export type ManagementKeyView = z.input<typeof managementKey>;
