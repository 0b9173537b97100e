import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../common/openapi';

export const PORTAL_CONTEXTS = ['launch', 'communications'] as const;

export class CreatePortalUrlDto extends createZodDto(
  z.object({
    context: z
      .enum(PORTAL_CONTEXTS)
      .describe(
        '`launch`: single-use, minutes, for a user already signed in to your app. `communications`: a short link for e-mail and SMS, weeks, revocable.',
      ),
    order_id: z.uuid().nullish().describe('Deep link: the portal opens this order of the user.'),
  }),
) {}

export class CreatePortalUrlResponseDto extends responseDto(
  z.object({
    url: z.string(),
    expires_in: z.number().int().describe('Seconds until the URL stops working.'),
  }),
) {}

export class PortalUrlParams extends createZodDto(
  z.object({
    user_id: z.uuid(),
    code: z
      .string()
      .regex(/^[0-9A-Za-z]{8}$/)
      .describe('The short code of a communications URL (`/p/<code>`).'),
  }),
) {}

export class RevokedPortalUrlsDto extends responseDto(z.object({ success: z.boolean(), revoked: z.number().int() })) {}
