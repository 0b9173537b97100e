import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { nextCursorParam } from '../common/keyset-cursor';
import { slug } from '../health-data/health-data.dto';

/** Users one request may name: Junction takes "any number" of requests, each one body under the API's body limit. */
export const MAX_BULK_USERS = 1000;

const provider = slug.describe('The OAuth provider whose connections move (oura).');
const waitForCompletion = z.boolean().optional().describe('Answer 200 once the operation is done, if that takes at most 20 seconds; otherwise 202 at once.');

/** `team_id` of every Link Migration route: the key's own team. */
const teamId = z
  .union([z.literal('infer_from_context'), z.uuid()])
  .optional()
  .describe("The API key's team (infer_from_context, the default, or its id).");
export class BulkTeamQuery extends createZodDto(z.object({ team_id: teamId })) {}

/** Each user at most once in one request. */
function uniqueUsers<T>(userIdOf: (item: T) => string, path: (index: number) => string) {
  return (items: T[], ctx: z.RefinementCtx) => {
    const seen = new Map<string, number>();
    items.forEach((item, index) => {
      const first = seen.get(userIdOf(item));
      if (first === undefined) seen.set(userIdOf(item), index);
      else ctx.addIssue({ code: 'custom', message: `${path(index)} repeats ${path(first)}: name each user once.`, path: [index] });
    });
  };
}

/** Junction's ConnectionRecipe: a connection as another system held it. */
const connectionRecipe = z.strictObject({
  user_id: z.uuid().describe('The labflow user (created beforehand).'),
  access_token: z.string().min(1).max(4096).describe('The latest access token.'),
  refresh_token: z.string().min(1).max(4096).describe('The latest refresh token.'),
  provider_id: z.string().min(1).max(256).describe("The user's id at the provider."),
  expires_at: z.number().int().min(0).max(2_147_483_647).describe('When the access token expires, UNIX epoch seconds.'),
  oauth_scopes: z.array(z.string().min(1).max(128)).max(64).nullish().describe('The scopes granted, or null when not on record.'),
});
export type ConnectionRecipe = z.infer<typeof connectionRecipe>;

/** `POST /v2/link/bulk_import` (BulkImportConnectionsBody). */
export class BulkImportDto extends createZodDto(
  z.strictObject({
    provider,
    connections: z
      .array(connectionRecipe)
      .min(1)
      .max(MAX_BULK_USERS)
      .superRefine(
        uniqueUsers(
          (recipe) => recipe.user_id,
          (index) => `connections[${index}].user_id`,
        ),
      ),
    wait_for_completion: waitForCompletion,
  }),
) {}

const userIds = z
  .array(z.uuid())
  .min(1)
  .max(MAX_BULK_USERS)
  .superRefine(
    uniqueUsers(
      (id) => id,
      (index) => `user_ids[${index}]`,
    ),
  );

/** `POST /v2/link/bulk_trigger_historical_pull` (BulkTriggerHistoricalPullBody). */
export class BulkHistoricalPullDto extends createZodDto(z.strictObject({ provider, user_ids: userIds, wait_for_completion: waitForCompletion })) {}

/** `POST /v2/link/bulk_pause` (BulkPauseConnectionsBody). */
export class BulkPauseDto extends createZodDto(z.strictObject({ provider, user_ids: userIds })) {}

/** `POST /v2/link/bulk_export` (BulkExportConnectionsBody). */
export class BulkExportDto extends createZodDto(
  z.strictObject({
    provider,
    user_ids: userIds.nullish().describe('Only these users (default: every connection of the team to the provider).'),
    next_token: z.string().max(200).nullish().describe('From the previous page; omit for the first.'),
  }),
) {}

/** `GET /v2/link/bulk_op` (LinkListBulkOpsRequest). */
export class ListBulkOpsQuery extends createZodDto(
  z.object({
    team_id: teamId,
    next_cursor: nextCursorParam,
    page_size: z.coerce.number().int().min(1).max(100).default(20).describe('Operations per page (1–100).'),
  }),
) {}
