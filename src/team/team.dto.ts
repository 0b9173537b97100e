import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { slug } from '../health-data/health-data.dto';
import { PRIORITY_DATA_TYPES } from '../health-data/source-priority';

export class TeamParams extends createZodDto(z.object({ team_id: z.uuid() })) {}

export class UserSearchQuery extends createZodDto(z.object({ query_id: z.string().trim().min(1).max(255).describe('A user id or a client_user_id.') })) {}

const priorityDataType = z.enum(PRIORITY_DATA_TYPES);

export class SourcePrioritiesQuery extends createZodDto(
  z.object({ data_type: priorityDataType.optional().describe('Only this data type (workouts, activity, sleep, body, timeseries).') }),
) {}

/**
 * `PATCH /v2/team/source/priorities`. The SDK's `updateSourcePriorities()` sends no body: that is
 * a PATCH of nothing, which changes nothing and answers the priorities as they are. A body ranks
 * providers (labflow's shape: the entries GET answers, `priority` null to drop a ranking).
 */
const patchSourcePriorities = z
  .array(
    z.object({
      data_type: priorityDataType,
      source: slug.describe('The provider slug.'),
      priority: z.number().int().min(1).max(1000).nullable().describe('1 wins over 2; null removes the ranking.'),
    }),
  )
  .max(500)
  .optional();
export type PatchSourcePriorities = z.infer<typeof patchSourcePriorities>;

/** The body as the request pipe (ZodRequestPipe) validates it: a list, or nothing (createZodDto takes objects only). */
export class PatchSourcePrioritiesDto {
  static readonly isZodDto = true;
  static readonly schema = patchSourcePriorities;
}
