import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { DestinationKind } from '../../events/destinations';
import type { ApiEnvironment, Region } from '../../tenancy/entities';

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
