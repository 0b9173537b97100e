import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, In } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import type { LoincCatalogueRow } from './loinc-catalogue-row';
import { LabEntity, LoincEntity, MarkerEntity, PanelMemberEntity } from './lab-catalog.entities';

export type Scope = Pick<TeamPrincipal, 'teamId' | 'environment'>;

/** Ids that fit Postgres `integer`; larger ones cannot exist (and would make the query fail). */
export const int32Ids = (ids: number[]) => ids.filter((id) => Number.isInteger(id) && id >= -2147483648 && id <= 2147483647);

/** `%`, `_` and `\` taken literally inside an ILIKE pattern. */
export const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

export interface MarkerSearch {
  labIds?: number[];
  name?: string;
  aLaCarteEnabled?: boolean;
}

/** Labs, markers, panels and LOINC codes: the read-only reference part of the catalog. */
@Injectable()
export class LabCatalogRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private labs?: Promise<LabEntity[]>;

  /**
   * Every lab, read once per process: labs are catalog rows only migrations write, and order
   * creation and `GET /v3/lab_tests/labs` ask for them on every request. A failed read is not kept.
   */
  allLabs(): Promise<LabEntity[]> {
    this.labs ??= this.db
      .getRepository(LabEntity)
      .find({ order: { id: 'ASC' } })
      .catch((error: unknown) => {
        this.labs = undefined;
        throw error;
      });
    return this.labs;
  }

  /** `manager`: a caller inside a transaction reads on its connection (never a second one of the pool). */
  labsByIds(ids: number[], manager: EntityManager = this.db.manager): Promise<LabEntity[]> {
    const valid = int32Ids(ids);
    if (valid.length === 0) return Promise.resolve([]);
    return manager.getRepository(LabEntity).findBy({ id: In(valid) });
  }

  labBySlug(slug: string): Promise<LabEntity | null> {
    return this.db.getRepository(LabEntity).findOneBy({ slug });
  }

  markersByIds(ids: number[], manager: EntityManager = this.db.manager): Promise<MarkerEntity[]> {
    const valid = int32Ids(ids);
    if (valid.length === 0) return Promise.resolve([]);
    return manager.getRepository(MarkerEntity).findBy({ id: In(valid) });
  }

  /** Markers with any of these provider ids, at any lab (a provider id is unique per lab only). */
  markersByProviderIds(providerIds: string[]): Promise<MarkerEntity[]> {
    if (providerIds.length === 0) return Promise.resolve([]);
    return this.db.getRepository(MarkerEntity).findBy({ providerId: In(providerIds) });
  }

  markerByLabAndProviderId(labId: number, providerId: string): Promise<MarkerEntity | null> {
    if (int32Ids([labId]).length === 0) return Promise.resolve(null);
    return this.db.getRepository(MarkerEntity).findOneBy({ labId, providerId });
  }

  /** One page of markers, ordered by lab then id, and how many match in all. */
  async searchMarkers(search: MarkerSearch, offset: number, limit: number): Promise<{ markers: MarkerEntity[]; total: number }> {
    const query = this.db.getRepository(MarkerEntity).createQueryBuilder('m');
    if (search.labIds) query.andWhere('m.lab_id = ANY(:labIds)', { labIds: int32Ids(search.labIds) });
    // A part of the marker's name, or its lab's test code (the whole code: "100" is no code's part).
    if (search.name) query.andWhere('(m.name ILIKE :name OR lower(m.provider_id) = lower(:code))', { name: likeContains(search.name), code: search.name });
    if (search.aLaCarteEnabled !== undefined) query.andWhere('m.a_la_carte_enabled = :alc', { alc: search.aLaCarteEnabled });
    const [markers, total] = await query.orderBy('m.labId', 'ASC').addOrderBy('m.id', 'ASC').skip(offset).take(limit).getManyAndCount();
    return { markers, total };
  }

  /** Members of these panels, in panel order. */
  panelMembers(panelIds: number[]): Promise<PanelMemberEntity[]> {
    if (panelIds.length === 0) return Promise.resolve([]);
    return this.db.getRepository(PanelMemberEntity).find({ where: { panelId: In(panelIds) }, order: { panelId: 'ASC', position: 'ASC' } });
  }

  loincsByIds(ids: number[]): Promise<LoincEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.getRepository(LoincEntity).findBy({ id: In(ids) });
  }

  /** Every LOINC code with its printed names, as lab-report parsing builds its catalogue from. */
  async loincCatalogueRows(): Promise<LoincCatalogueRow[]> {
    const rows = await this.db.getRepository(LoincEntity).find({ order: { id: 'ASC' } });
    return rows.map((row) => ({ code: row.code, name: row.name, display_name: row.displayName, unit: row.unit, aliases: row.aliases, specimen: row.specimen }));
  }
}
