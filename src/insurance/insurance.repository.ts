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

/** The payor registry (table `payors`, seeded by a migration with real payor codes). */
@Injectable()
export class PayorRegistry {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  findByCode(code: string): Promise<PayorEntity | null> {
    return this.db.getRepository(PayorEntity).findOneBy({ code });
  }
}
