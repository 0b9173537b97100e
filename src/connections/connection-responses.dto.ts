import { responseDto } from '../common/openapi';
import { z } from 'zod';

/** What the connection routes answer (connections.service.ts), documented in /openapi.json. */

export class ConnectDemoResponse extends responseDto(z.object({ success: z.literal(true), detail: z.string() })) {}

export class UserProvidersResponse extends responseDto(
  z.object({
    providers: z.array(
      z.object({
        name: z.string(),
        slug: z.string(),
        logo: z.string(),
        status: z.enum(['error', 'connected', 'paused']),
        external_user_id: z.string(),
        created_on: z.string(),
        resource_availability: z.record(z.string(), z.object({ status: z.literal('available') })),
        error_details: z.object({ error_type: z.string().nullable(), error_message: z.string().nullable(), errored_at: z.string().optional() }).optional(),
      }),
    ),
  }),
) {}

export class RefreshResponse extends responseDto(
  z.object({
    success: z.boolean(),
    user_id: z.string(),
    refreshed_sources: z.array(z.string()),
    in_progress_sources: z.array(z.string()),
    failed_sources: z.array(z.string()),
  }),
) {}
