import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { slug } from '../health-data/health-data.dto';
import { DEMO_PROVIDERS } from './sandbox-physiology';

/** `POST /v2/link/connect/demo` (DemoConnectionCreationPayload). */
export class ConnectDemoDto extends createZodDto(
  z.object({
    user_id: z.uuid().describe('The user to connect.'),
    provider: z.enum(DEMO_PROVIDERS).describe('A demo provider: apple_health_kit, fitbit, freestyle_libre or oura.'),
  }),
) {}

export class ConnectionUserParams extends createZodDto(z.object({ user_id: z.uuid() })) {}

export class ConnectionProviderParams extends createZodDto(z.object({ user_id: z.uuid(), provider: slug })) {}

/** `POST /v2/user/refresh/{user_id}?timeout=`: seconds to wait for the syncs before answering (default: none). */
export class RefreshQuery extends createZodDto(z.object({ timeout: z.coerce.number().min(0).max(600).optional() })) {}

/**
 * A WHOOP webhook (developer.whoop.com, "Webhooks", model v2): the member's WHOOP user id, the
 * record's id and what happened to it (`sleep.updated`, `recovery.deleted`, …). Other fields are
 * ignored, so a field WHOOP adds later does not refuse its webhooks.
 */
export class WhoopWebhookDto extends createZodDto(
  z.object({
    // A number in WHOOP's model; its digits as a string are taken too, so a change of encoding at
    // WHOOP does not turn every webhook into a 422 that WHOOP retries.
    user_id: z.union([z.number().int().positive(), z.string().regex(/^[1-9]\d{0,18}$/)]).describe("The member's WHOOP user id."),
    id: z.union([z.string().max(200), z.number()]).describe('The record that changed.'),
    type: z.string().min(1).max(100).describe('`<sleep|recovery|workout>.<updated|deleted>`.'),
    trace_id: z.string().max(200).optional(),
  }),
) {}
