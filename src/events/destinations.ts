/**
 * Where events go besides webhooks: the destination configurations of an event destination (ETL
 * pipeline). Management stores them (encrypted, in etl_pipelines.destinations_enc) after checking
 * them; the delivery worker reads them to publish.
 */
export const DESTINATION_KINDS = ['rabbitmq', 'cloud_pubsub', 'azure_amqp'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

export interface RabbitMqDestination {
  /** amqp:// or amqps:// URI, credentials included. */
  uri: string;
  exchange: string;
}

export interface CloudPubSubDestination {
  project: string;
  topic: string;
  message_ordering: boolean;
}

/** One routing rule: a prefix or a regex on the event type, to an event hub or blob storage. */
export interface AzureEventHubMatcher {
  event_type_prefix?: string;
  event_type_regex?: string;
  event_hub?: string;
  blob_storage?: string;
}

export interface AzureAmqpDestination {
  connection_string: string;
  default_event_hub: string;
  event_hub_matchers: AzureEventHubMatcher[];
  compression: 'none' | 'gzip';
}

/** Destination configurations, stored encrypted (URIs and connection strings carry secrets). */
export interface EtlDestinations {
  rabbitmq?: RabbitMqDestination;
  cloud_pubsub?: CloudPubSubDestination;
  azure_amqp?: AzureAmqpDestination;
}
