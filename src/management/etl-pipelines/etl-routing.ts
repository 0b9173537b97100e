import { nonPublicHostProblem } from '../webhooks/webhook-url';
import type { AzureAmqpDestination, EtlPipelineEntity } from './etl-pipeline.entity';

/** Whether a pipeline takes an event: no prefixes (null or []) means every event type. */
export function pipelineAccepts(pipeline: Pick<EtlPipelineEntity, 'eventTypePrefixes'>, eventType: string): boolean {
  const prefixes = pipeline.eventTypePrefixes;
  return !prefixes || prefixes.length === 0 || prefixes.some((prefix) => eventType.startsWith(prefix));
}

/**
 * Where an Azure AMQP destination sends an event: the first matcher (in order) whose prefix or
 * regex fits the event type, else the default event hub.
 */
export function azureTargetFor(
  destination: AzureAmqpDestination,
  eventType: string,
): { event_hub: string } | { blob_storage: string } {
  for (const matcher of destination.event_hub_matchers) {
    const fits =
      matcher.event_type_prefix !== undefined
        ? eventType.startsWith(matcher.event_type_prefix)
        : new RegExp(matcher.event_type_regex ?? '(?!)').test(eventType);
    if (!fits) continue;
    if (matcher.event_hub !== undefined) return { event_hub: matcher.event_hub };
    if (matcher.blob_storage !== undefined) return { blob_storage: matcher.blob_storage };
  }
  return { event_hub: destination.default_event_hub };
}

/** An amqp:// or amqps:// URI with a host (RabbitMQ). */
export function isAmqpUri(value: string): boolean {
  if (!/^amqps?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'amqp:' || url.protocol === 'amqps:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * Why a RabbitMQ URI is refused as an outbound target (server-side request forgery), or null:
 * unless `allowPrivate` (development and tests, ALLOW_PRIVATE_WEBHOOK_URLS), no localhost and no
 * literal private, loopback or link-local address. The URI's form is checked by isAmqpUri.
 */
export function amqpUriProblem(value: string, allowPrivate: boolean): string | null {
  if (allowPrivate || !isAmqpUri(value)) return null;
  return nonPublicHostProblem(new URL(value).hostname, 'URI');
}

/** A RabbitMQ URI with its password replaced, for reading back. */
export function maskAmqpUri(uri: string): string {
  return uri.replace(/^(amqps?:\/\/[^:@/]*:)[^@/]*@/i, '$1****@');
}

/** An Azure connection string with its shared access key replaced, for reading back. */
export function maskAzureConnectionString(connection: string): string {
  return connection.replace(/(SharedAccessKey=)[^;]*/gi, '$1****');
}
