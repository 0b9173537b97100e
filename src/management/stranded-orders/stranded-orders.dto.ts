import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../../common/openapi';
import { nextCursorParam } from '../../common/keyset-cursor';

export class ListStrandedOrdersQuery extends createZodDto(
  z.object({
    include_resolved: z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .default(false)
      .describe('Also list orders that were stranded and are fine again or have ended.'),
    next_cursor: nextCursorParam,
  }),
) {}

const strandedOrder = z.object({
  order_id: z.string(),
  team_id: z.string(),
  environment: z.enum(['sandbox', 'production']),
  kind: z.enum(['closed', 'missing', 'stalled']).describe('What the reconciler found: the workflow closed, is missing, or makes no progress.'),
  state: z
    .enum(['healed', 'raised', 'resolved'])
    .describe('healed: a new workflow run was started; raised: needs a human (stalled, heal limit reached, restart failed); resolved: fine again or ended.'),
  detail: z.string(),
  heal_attempts: z.number().int().describe('New workflow runs started for the order so far.'),
  first_seen_at: z.string(),
  last_seen_at: z.string(),
  healed_at: z.string().nullable(),
  resolved_at: z.string().nullable(),
});

export class StrandedOrderListDto extends responseDto(z.object({ stranded_orders: z.array(strandedOrder), next_cursor: z.string().nullable() })) {}

export type StrandedOrderView = z.input<typeof strandedOrder>;
