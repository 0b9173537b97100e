import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../../common/openapi';
import { nextCursorParam } from '../../common/keyset-cursor';
import { uuidParam } from '../common/params';
import { repeatable } from '../../common/schemas';
import { isAmqpUri } from '../../events/amqp-uri';
import { DESTINATION_KINDS } from '../../events/destinations';

const kind = z.enum(DESTINATION_KINDS);
const eventTypePrefix = z.string().regex(/^[a-z0-9_.]{1,128}$/);
const eventHubName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,255}$/);

const rabbitmq = z.strictObject({
  uri: z.string().max(2048).refine(isAmqpUri, { message: 'Must be an amqp:// or amqps:// URI with a host.' }),
  exchange: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{0,255}$/)
    .describe('Exchange to publish to; routing key = event type.'),
});

const cloudPubSub = z.strictObject({
  project: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/),
  topic: z.string().regex(/^(?!goog)[A-Za-z][A-Za-z0-9\-_.~+%]{2,254}$/),
  message_ordering: z.boolean().default(false),
});

const matcher = z
  .strictObject({
    event_type_prefix: eventTypePrefix.optional(),
    event_type_regex: z.string().min(1).max(256).refine(compiles, { message: 'Not a valid regular expression.' }).optional(),
    event_hub: eventHubName.optional(),
    blob_storage: z.string().min(1).max(1024).optional(),
  })
  .refine((m) => (m.event_type_prefix === undefined) !== (m.event_type_regex === undefined), {
    message: 'Give exactly one of event_type_prefix or event_type_regex.',
  })
  .refine((m) => (m.event_hub === undefined) !== (m.blob_storage === undefined), {
    message: 'Give exactly one of event_hub or blob_storage.',
  });

const azureAmqp = z.strictObject({
  connection_string: z
    .string()
    .max(4096)
    .regex(/(^|;)\s*Endpoint=sb:\/\/[^;]+/i, { message: 'Must be an Azure connection string with Endpoint=sb://…' }),
  default_event_hub: eventHubName,
  event_hub_matchers: z.array(matcher).max(50).default([]).describe('Tried in order; unmatched events go to default_event_hub.'),
  compression: z.enum(['none', 'gzip']).default('none'),
});

export class UpsertEtlPipelineDto extends createZodDto(
  z
    .strictObject({
      team_ids: z.array(uuidParam).min(1).max(100),
      event_type_prefixes: z.array(eventTypePrefix).max(100).nullish().describe('Allowlist of event type prefixes; null or [] for all.'),
      preferences: z.strictObject({ preferred: kind, enabled: z.array(kind).min(1).max(3) }),
      rabbitmq: rabbitmq.optional(),
      cloud_pubsub: cloudPubSub.optional(),
      azure_amqp: azureAmqp.optional(),
    })
    .superRefine((body, ctx) => {
      if (!body.preferences.enabled.includes(body.preferences.preferred)) {
        ctx.addIssue({
          code: 'custom',
          path: ['preferences', 'preferred'],
          message: 'The preferred destination must be enabled.',
          input: body.preferences.preferred,
        });
      }
      for (const enabled of new Set(body.preferences.enabled)) {
        if (!body[enabled]) {
          ctx.addIssue({ code: 'custom', path: [enabled], message: `${enabled} is enabled but not configured.`, input: undefined });
        }
      }
    }),
) {}

export class ListEtlPipelinesQuery extends createZodDto(z.object({ team_id: uuidParam.optional(), next_cursor: nextCursorParam })) {}

export class DeleteEtlPipelinesQuery extends createZodDto(
  z.object({ team_id: repeatable(uuidParam, { min: 1, max: 100 }).describe('Repeat to delete the pipelines of several teams.') }),
) {}

const pipeline = z.object({
  id: z.string(),
  team_id: z.string(),
  environment: z.string(),
  region: z.string(),
  event_type_prefixes: z.array(z.string()).nullable(),
  preferences: z.object({ preferred: kind, enabled: z.array(kind) }),
  rabbitmq: z.object({ uri: z.string().describe('Password masked.'), exchange: z.string() }).nullable(),
  cloud_pubsub: z.object({ project: z.string(), topic: z.string(), message_ordering: z.boolean() }).nullable(),
  azure_amqp: z
    .object({
      connection_string: z.string().describe('SharedAccessKey masked.'),
      default_event_hub: z.string(),
      event_hub_matchers: z.array(z.record(z.string(), z.string())),
      compression: z.string(),
    })
    .nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export class EtlPipelineListDto extends responseDto(z.object({ pipelines: z.array(pipeline), next_cursor: z.string().nullable() })) {}

export type EtlPipelineView = z.input<typeof pipeline>;

function compiles(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}
