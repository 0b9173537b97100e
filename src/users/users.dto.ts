import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { isoDate, ianaTimeZone } from '../common/schemas';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// E.164 (+15551234567) or a formatted number ((555) 123-4567, 555-123-4567, 555.123.4567).
// Plain digit strings stay allowed: teams often use numeric database ids.
const PHONE = /^(\+[1-9]\d{6,14}|\+?\d{0,3}[\s.-]?\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4})$/;

export const clientUserId = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine((value) => !EMAIL.test(value), { message: 'client_user_id must not be an e-mail address' })
  .refine((value) => !PHONE.test(value), { message: 'client_user_id must not be a phone number' });

export class CreateUserDto extends createZodDto(
  z.object({
    client_user_id: clientUserId,
    fallback_time_zone: ianaTimeZone.optional(),
    fallback_birth_date: isoDate.optional(),
    ingestion_start: isoDate.optional(),
    ingestion_end: isoDate.optional(),
  }),
) {}

export class PatchUserDto extends createZodDto(
  z.object({
    client_user_id: clientUserId.optional(),
    fallback_time_zone: ianaTimeZone.optional(),
    fallback_birth_date: isoDate.optional(),
    ingestion_start: isoDate.optional(),
    ingestion_end: isoDate.optional(),
  }),
) {}

export class UserIdParams extends createZodDto(z.object({ user_id: z.uuid() })) {}

export class ClientUserIdParams extends createZodDto(z.object({ client_user_id: z.string().min(1).max(255) })) {}

export class ListUsersQuery extends createZodDto(
  z.object({
    offset: z.coerce.number().int().min(0).default(0),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  }),
) {}

export class UndoDeleteQuery extends createZodDto(
  z
    .object({ user_id: z.uuid().optional(), client_user_id: z.string().min(1).max(255).optional() })
    .refine((q) => (q.user_id === undefined) !== (q.client_user_id === undefined), {
      message: 'Give exactly one of user_id or client_user_id.',
    }),
) {}
