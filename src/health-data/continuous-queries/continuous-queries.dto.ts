import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { nextCursorParam } from '../../common/keyset-cursor';
import { period, querySchema } from '../aggregation.dto';

/** A query's slug: what teams name it by in paths and events. */
const slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'A slug is 1–64 lower-case letters, digits, `_` or `-`, starting with a letter or digit.')
  .describe('The name the query is read by (`…/continuous_query/{slug}/…`) and sent with (`query_slug`).');

/** The definition of a continuous query (management API). */
export const continuousQueryDefinition = z.strictObject({
  slug,
  query: querySchema.describe("One query of Junction's query language (as in `POST /aggregate/v1/user/{user_id}/query`)."),
  past: period.describe('The window: this far back from the end of the current UTC day when the query is evaluated.'),
});

export class ContinuousQueryUserParams extends createZodDto(z.object({ user_id: z.uuid(), query_id_or_slug: z.string().min(1).max(64) })) {}

export class TaskHistoryQuery extends createZodDto(
  z.object({
    next_cursor: nextCursorParam,
    limit: z.coerce.number().int().min(1).max(100).default(20).describe('Tasks per page (newest first).'),
  }),
) {}
