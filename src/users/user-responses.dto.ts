import { responseDto } from '../common/openapi';
import { z } from 'zod';

/** What the user routes answer (users.service.ts `UserView`), documented in /openapi.json. */

const sourceRef = z.object({ name: z.string(), slug: z.string(), logo: z.string() });

export const connectedSourceSchema = z.object({ provider: sourceRef, created_on: z.string(), source: sourceRef });

const sourced = { source_slug: z.string(), updated_at: z.string() };

export const userSchema = z.object({
  user_id: z.uuid(),
  team_id: z.uuid(),
  client_user_id: z.string(),
  created_on: z.string(),
  connected_sources: z.array(connectedSourceSchema),
  fallback_time_zone: z.object({ id: z.string(), ...sourced }).nullable(),
  fallback_birth_date: z.object({ value: z.string(), ...sourced }).nullable(),
  ingestion_start: z.string().nullable(),
  ingestion_end: z.string().nullable(),
});

export class UserResponse extends responseDto(userSchema) {}

export class UserListResponse extends responseDto(
  z.object({ users: z.array(userSchema), total: z.number().int(), offset: z.number().int(), limit: z.number().int() }),
) {}

export class UserArrayResponse extends responseDto(z.array(userSchema)) {}
