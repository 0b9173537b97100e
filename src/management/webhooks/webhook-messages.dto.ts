import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../../common/openapi';
import { nullable, repeatable } from '../../common/schemas';
import { nextCursorParam } from '../../common/keyset-cursor';
import { environmentParam, uuidParam } from '../common/params';

const DELIVERY_STATUSES = ['pending', 'succeeded', 'exhausted', 'cancelled'] as const;
const ATTEMPT_STATUSES = ['sending', 'succeeded', 'failed', 'interrupted'] as const;

export class WebhookMessageParams extends createZodDto(
  z.object({ org_id: uuidParam, team_id: uuidParam, environment: environmentParam, webhook_id: uuidParam, message_id: uuidParam }),
) {}

const limit = z.coerce.number().int().min(1).max(250).default(50);

export class ListMessagesQuery extends createZodDto(
  z.object({
    limit,
    next_cursor: nextCursorParam,
    status: z.enum(DELIVERY_STATUSES).optional().describe('Only messages in this delivery state (e.g. exhausted).'),
    event_types: repeatable(z.string().max(128), { max: 50 }).optional().describe('Only these event types.'),
  }),
) {}

export class ListAttemptsQuery extends createZodDto(
  z.object({
    limit,
    next_cursor: nextCursorParam,
    status: z.enum(ATTEMPT_STATUSES).optional(),
  }),
) {}

const message = z.object({
  id: z.string().describe('The event id; also the webhook-id / svix-id header of every attempt.'),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES).describe('pending: attempts remain; exhausted: every scheduled attempt failed; cancelled: endpoint gone or disabled.'),
  status_reason: nullable(z.string()),
  attempt_count: z.number().int(),
  next_attempt_at: nullable(z.string().describe('When the next attempt is due (pending only).')),
  last_attempt_at: nullable(z.string()),
  created_at: z.string(),
});

const attempt = z.object({
  id: z.string(),
  message_id: z.string(),
  endpoint_id: z.string(),
  attempt_number: z.number().int(),
  trigger: z.enum(['scheduled', 'manual']),
  status: z.enum(ATTEMPT_STATUSES).describe('interrupted: the worker stopped mid-attempt; the receiver may have got it.'),
  url: nullable(z.string()),
  response_status_code: nullable(z.number().int()),
  response: nullable(z.string().describe('First 1000 characters of the response body.')),
  error: nullable(z.string()),
  latency_ms: nullable(z.number().int()),
  created_at: z.string(),
  finished_at: nullable(z.string()),
});

export class WebhookMessageDto extends responseDto(message) {}
export class WebhookMessageWithPayloadDto extends responseDto(
  message.extend({ payload: z.unknown().describe('The envelope {event_type, data, team_id, user_id, client_user_id}.') }),
) {}
export class WebhookMessageListDto extends responseDto(z.object({ data: z.array(message), next_cursor: nullable(z.string()) })) {}
export class WebhookAttemptListDto extends responseDto(z.object({ data: z.array(attempt), next_cursor: nullable(z.string()) })) {}

export class RecoverMessagesDto extends createZodDto(
  z.object({
    since: z.iso
      .datetime({ offset: true })
      .describe(
        'Messages created at or after this instant (ISO 8601 with a zone) whose attempts all failed, or that were cancelled while the endpoint was disabled, are sent again.',
      ),
  }),
) {}
export class RecoveredMessagesDto extends responseDto(z.object({ recovered: z.number().int().describe('How many messages were queued to be sent again.') })) {}
