import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';

/** `GET /v2/team/svix/url`: Svix's app-portal-access shape (`url`, `token`) and how long the URL works. */
export class WebhookPortalUrlDto extends createZodDto(
  z.object({
    url: z.string().describe('Open in a browser: the webhook portal, signed in as the team. Works once.'),
    token: z.string().describe('The signed token the URL carries.'),
    expires_in: z.number().int().describe('Seconds the URL works for.'),
  }),
) {}
