import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../../common/openapi';
import { nextCursorParam } from '../../common/keyset-cursor';
import { environmentParam, uuidParam } from '../common/params';
import { webhookSecret } from './webhook-secrets';

const webhookUrl = z.url({ protocol: /^https?$/ }).max(2048);
const eventType = z
  .string()
  .regex(/^[a-z0-9_]+(\.[a-z0-9_]+)*$/)
  .max(128);
const filterTypes = z.array(eventType).max(200).describe('Event types to deliver; null or [] for every type.');

/** RFC 9110 token. */
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/);
/** No control characters (CR/LF would split headers). */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u0008\u000a-\u001f\u007f]*$/;
const headerValue = z.string().max(4096).regex(NO_CONTROL_CHARACTERS);

/** Headers labflow sets itself on every delivery; a custom header may not replace them. */
export const RESERVED_HEADERS = new Set([
  'host',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'svix-id',
  'svix-timestamp',
  'svix-signature',
]);

export class WebhooksParams extends createZodDto(z.object({ org_id: uuidParam, team_id: uuidParam, environment: environmentParam })) {}

export class WebhookParams extends createZodDto(z.object({ org_id: uuidParam, team_id: uuidParam, environment: environmentParam, webhook_id: uuidParam })) {}

export class ListWebhooksQuery extends createZodDto(z.object({ limit: z.coerce.number().int().min(1).max(250).default(50), next_cursor: nextCursorParam })) {}

export class CreateWebhookDto extends createZodDto(
  z.strictObject({
    url: webhookUrl,
    description: z.string().max(1000).default(''),
    rate_limit: z.number().int().min(1).max(100_000).nullish().describe('Deliveries per second; null for no limit.'),
    disabled: z.boolean().default(false),
    secret: webhookSecret.optional().describe('Signing secret (whsec_…); generated when omitted.'),
    filter_types: filterTypes.nullish(),
  }),
) {}

export class PatchWebhookDto extends createZodDto(
  z.strictObject({
    url: webhookUrl.optional(),
    description: z.string().max(1000).optional(),
    rate_limit: z.number().int().min(1).max(100_000).nullish(),
    disabled: z.boolean().optional(),
    filter_types: filterTypes.nullish(),
  }),
) {}

export class WebhookHeadersDto extends createZodDto(
  z.strictObject({
    headers: z
      .record(headerName, headerValue)
      .refine((headers) => Object.keys(headers).length <= 20, { message: 'At most 20 custom headers.' })
      .refine((headers) => Object.keys(headers).every((name) => !RESERVED_HEADERS.has(name.toLowerCase())), {
        message: `These headers are set by labflow and cannot be replaced: ${[...RESERVED_HEADERS].join(', ')}.`,
      }),
    sensitive: z.array(headerName).max(20).default([]).describe('Names of headers whose values are masked when read.'),
  }),
) {}

export class RotateSecretDto extends createZodDto(
  z.strictObject({ key: webhookSecret.optional().describe('The new secret; generated when omitted.') }).default({}),
) {}

const webhook = z.object({
  id: z.string(),
  description: z.string(),
  rate_limit: z.number().nullable(),
  url: z.string(),
  disabled: z.boolean(),
  filter_types: z.array(z.string()).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export class WebhookDto extends responseDto(webhook) {}
export class WebhookListDto extends responseDto(z.object({ data: z.array(webhook), next_cursor: z.string().nullable() })) {}
export class WebhookHeadersViewDto extends responseDto(z.object({ headers: z.record(z.string(), z.string()), sensitive: z.array(z.string()) })) {}
export class WebhookSecretDto extends responseDto(z.object({ key: z.string() })) {}

export type WebhookView = z.input<typeof webhook>;
