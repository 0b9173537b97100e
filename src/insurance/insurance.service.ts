import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { notFound, validationError } from '../common/errors';
import type { PhiAccess } from '../common/phi-access-log';
import { UsersRepository } from '../users/users.repository';
import type { ClientFacingInsurance, CreateInsuranceDto, GuarantorDetails, PersonDetails } from './insurance.dto';
import { InsuranceEntity, type PayorEntity } from './insurance.entity';
import { InsuranceRepository, PayorRegistry } from './insurance.repository';

/**
 * Insurance records: the user must be live in the caller's team and environment, `company` is
 * resolved from the payor registry, and member id, insured and guarantor are stored only as
 * AES-256-GCM ciphertext. Every read and write of them leaves a phi_access_log row.
 */
@Injectable()
export class InsuranceService {
  constructor(
    private readonly insurances: InsuranceRepository,
    private readonly payors: PayorRegistry,
    private readonly users: UsersRepository,
    private readonly cipher: PhiCipher,
  ) {}

  async create(team: TeamPrincipal, userId: string, body: CreateInsuranceDto): Promise<ClientFacingInsurance> {
    await this.requireLiveUser(team, userId);
    const payor = await this.payors.findVisible(team.teamId, body.payor_code);
    if (!payor) {
      throw validationError(
        ['body', 'payor_code'],
        `Unknown payor_code "${body.payor_code}": it is not in the payor registry.`,
        body.payor_code,
        'value_error',
        { reason: 'unknown_payor_code' },
      );
    }
    const insurance = Object.assign(new InsuranceEntity(), {
      id: randomUUID(),
      teamId: team.teamId,
      userId,
      payorCode: payor.code,
      relationship: body.relationship,
      isPrimary: body.is_primary,
      groupId: body.group_id || null, // blank (trimmed to '') means no group
      memberIdEnc: this.cipher.encryptJson(body.member_id),
      insuredEnc: this.cipher.encryptJson(body.insured),
      guarantorEnc: body.guarantor ? this.cipher.encryptJson(body.guarantor) : null,
    });
    const saved = await this.insurances.insertAudited(insurance, accessBy(team));
    return this.toView(saved, payor);
  }

  async latest(team: TeamPrincipal, userId: string, isPrimary?: boolean): Promise<ClientFacingInsurance> {
    await this.requireLiveUser(team, userId);
    const insurance = await this.insurances.findLatestForUser(team.teamId, userId, isPrimary);
    if (!insurance) throw notFound('Insurance');
    const payor = await this.payors.findVisible(team.teamId, insurance.payorCode);
    // payor_code is a foreign key to payors, so this only fails if the registry lost a row.
    if (!payor) throw new Error(`Payor ${insurance.payorCode} of insurance ${insurance.id} is missing`);
    const view = this.toView(insurance, payor);
    await this.insurances.logRead(insurance.id, accessBy(team));
    return view;
  }

  private async requireLiveUser(team: TeamPrincipal, userId: string): Promise<void> {
    if (!(await this.users.findLive(team, userId))) throw notFound('User');
  }

  private toView(insurance: InsuranceEntity, payor: PayorEntity): ClientFacingInsurance {
    return {
      member_id: this.cipher.decryptJson<string>(insurance.memberIdEnc),
      payor_code: insurance.payorCode,
      relationship: insurance.relationship as ClientFacingInsurance['relationship'],
      insured: this.cipher.decryptJson<PersonDetails>(insurance.insuredEnc),
      company: {
        name: payor.name,
        address: { ...payor.address, second_line: payor.address.second_line ?? '' },
      },
      group_id: insurance.groupId,
      guarantor: insurance.guarantorEnc ? this.cipher.decryptJson<GuarantorDetails>(insurance.guarantorEnc) : null,
      is_primary: insurance.isPrimary,
    };
  }
}

function accessBy(team: TeamPrincipal): PhiAccess {
  return { teamId: team.teamId, apiKeyId: team.apiKeyId ?? null };
}
