import { z } from 'zod';
import { responseDto } from '../../common/openapi';

/** What revoking a team's webhook portal sessions answers. */
export class RevokedWebhookPortalSessionsDto extends responseDto(
  z.object({
    success: z.boolean(),
    revoked: z.number().int().describe('Open sessions and launch URLs not yet opened that were revoked (0 when there were none).'),
  }),
) {}
