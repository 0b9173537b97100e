import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { logPhiAccess, type PhiAccess } from '../common/phi-access-log';
import { InsuranceEntity, PayorEntity } from './insurance.entity';

const RESOURCE = 'insurance';

/** Intent-named queries over insurances and their PHI audit rows. */
@Injectable()
export class InsuranceRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Stores the insurance and its audit row together: no write goes unlogged. */
  insertAudited(insurance: InsuranceEntity, by: PhiAccess): Promise<InsuranceEntity> {
    return this.db.transaction(async (manager) => {
      const saved = await manager.getRepository(InsuranceEntity).save(insurance);
      await logPhiAccess(manager, by, 'write', RESOURCE, [saved.id]);
      return saved;
    });
  }

  /** The user's most recent insurance, optionally only primary (true) or only secondary (false). */
  findLatestForUser(teamId: string, userId: string, isPrimary?: boolean): Promise<InsuranceEntity | null> {
    return this.db.getRepository(InsuranceEntity).findOne({
      where: { teamId, userId, ...(isPrimary === undefined ? {} : { isPrimary }) },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  async logRead(insuranceId: string, by: PhiAccess): Promise<void> {
    await logPhiAccess(this.db.manager, by, 'read', RESOURCE, [insuranceId]);
  }
}

/** What a payor search asks: a part of a name or alias, or a code; a clearinghouse id. */
export interface PayorSearch {
  name?: string;
  provider?: string;
  providerPayorId?: string;
}

/** Payors a search answers at most. */
const PAYOR_SEARCH_LIMIT = 100;

/**
 * The payor registry (table `payors`): the platform's, seeded by a migration with real payor
 * codes, and each team's own, which only that team sees.
 */
@Injectable()
export class PayorRegistry {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The payor with this code, if the team can use it (the platform's, or its own). */
  findVisible(teamId: string, code: string): Promise<PayorEntity | null> {
    return this.db
      .getRepository(PayorEntity)
      .createQueryBuilder('p')
      .where('p.code = :code', { code })
      .andWhere('(p.team_id IS NULL OR p.team_id = :teamId)', { teamId })
      .getOne();
  }

  /** The payors the team can use that match, the team's own first, then by name. */
  search(teamId: string, search: PayorSearch): Promise<PayorEntity[]> {
    const query = this.db
      .getRepository(PayorEntity)
      .createQueryBuilder('p')
      .where('(p.team_id IS NULL OR p.team_id = :teamId)', { teamId })
      .orderBy('p.team_id IS NULL')
      .addOrderBy('p.name')
      .addOrderBy('p.code')
      .limit(PAYOR_SEARCH_LIMIT);
    if (search.name !== undefined) {
      // A part of the name or of an alias, any case (LIKE's own characters taken literally), or the exact code.
      const pattern = `%${search.name.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
      query.andWhere(
        `(lower(p.name) LIKE :pattern OR EXISTS (SELECT 1 FROM unnest(p.aliases) alias WHERE lower(alias) LIKE :pattern) OR upper(p.code) = upper(:code))`,
        { pattern, code: search.name },
      );
    }
    if (search.provider !== undefined) query.andWhere('p.provider = :provider', { provider: search.provider });
    if (search.providerPayorId !== undefined) query.andWhere('p.provider_payor_id = :providerPayorId', { providerPayorId: search.providerPayorId });
    return query.getMany();
  }

  /** The team's payor known at `provider` by `providerPayorId`, if any. */
  findByProviderId(teamId: string, provider: string, providerPayorId: string): Promise<PayorEntity | null> {
    return this.db.getRepository(PayorEntity).findOneBy({ teamId, provider, providerPayorId });
  }

  insert(payor: PayorEntity): Promise<PayorEntity> {
    return this.db.getRepository(PayorEntity).save(payor);
  }
}
