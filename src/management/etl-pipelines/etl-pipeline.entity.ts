import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ApiEnvironment, Region } from '../../tenancy/entities';

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

/**
 * A team's event destination (ETL pipeline) in one environment and region: which events
 * (`eventTypePrefixes`, null = all) go to which enabled destinations.
 */
@Entity({ name: 'etl_pipelines' })
export class EtlPipelineEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'team_id' }) teamId!: string;
  @Column('text') environment!: ApiEnvironment;
  @Column('text') region!: Region;
  @Column('text', { name: 'event_type_prefixes', array: true, nullable: true }) eventTypePrefixes!: string[] | null;
  @Column('text') preferred!: DestinationKind;
  @Column('text', { array: true }) enabled!: DestinationKind[];
  /** PhiCipher-encrypted JSON of EtlDestinations. */
  @Column('text', { name: 'destinations_enc' }) destinationsEnc!: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
