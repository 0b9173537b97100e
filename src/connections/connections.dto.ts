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
