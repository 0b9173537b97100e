import type { AzureAmqpDestination } from '../../events/destinations';
import type { EtlPipelineEntity } from './etl-pipeline.entity';

/** Whether a pipeline takes an event: no prefixes (null or []) means every event type. */
export function pipelineAccepts(pipeline: Pick<EtlPipelineEntity, 'eventTypePrefixes'>, eventType: string): boolean {
  const prefixes = pipeline.eventTypePrefixes;
  return !prefixes || prefixes.length === 0 || prefixes.some((prefix) => eventType.startsWith(prefix));
}

/**
 * Where an Azure AMQP destination sends an event: the first matcher (in order) whose prefix or
 * regex fits the event type, else the default event hub.
 */
export function azureTargetFor(destination: AzureAmqpDestination, eventType: string): { event_hub: string } | { blob_storage: string } {
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

/** An Azure connection string with its shared access key replaced, for reading back. */
export function maskAzureConnectionString(connection: string): string {
  return connection.replace(/(SharedAccessKey=)[^;]*/gi, '$1****');
}
