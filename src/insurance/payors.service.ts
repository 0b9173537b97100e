import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { TeamPrincipal } from '../auth/principal';
import { conflict } from '../common/errors';
import { isUniqueViolation } from '../users/users.repository';
import type { CreatePayorDto, PayorView } from './payors.dto';
import { PayorEntity } from './insurance.entity';
import { type PayorSearch, PayorRegistry } from './insurance.repository';

/**
 * The payor registry over HTTP: search the payors a team can bill (the platform's and its own)
 * by name, alias, code or clearinghouse id, and add payors of its own (`POST /v3/payor`), whose
 * codes then work in `POST /v2/user/{id}/insurance` for that team only.
 */
@Injectable()
export class PayorsService {
  constructor(private readonly payors: PayorRegistry) {}

  async search(team: TeamPrincipal, search: PayorSearch): Promise<PayorView[]> {
    return (await this.payors.search(team.teamId, search)).map(toPayorView);
  }

  async create(team: TeamPrincipal, body: CreatePayorDto): Promise<PayorView> {
    const address = body.address;
    const payor = Object.assign(new PayorEntity(), {
      code: newTeamPayorCode(),
      teamId: team.teamId,
      name: body.name,
      aliases: [],
      provider: body.provider ?? null,
      providerPayorId: body.provider_payor_id ?? null,
      address: {
        first_line: address.first_line,
        second_line: address.second_line || null,
        city: address.city,
        state: address.state,
        zip: address.zip,
        country: address.country,
      },
    });
    try {
      return toPayorView(await this.payors.insert(payor));
    } catch (error) {
      if (!isUniqueViolation(error) || !payor.provider || !payor.providerPayorId) throw error;
      const existing = await this.payors.findByProviderId(team.teamId, payor.provider, payor.providerPayorId);
      throw conflict(`The team already has payor ${existing?.code ?? '(unknown)'} with provider_payor_id ${payor.providerPayorId} at ${payor.provider}.`);
    }
  }
}

/** A team payor's code: `T` and 9 characters, apart from every platform code (electronic payer ids). */
function newTeamPayorCode(): string {
  const alphabet = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';
  return `T${[...randomBytes(9)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

export function toPayorView(payor: PayorEntity): PayorView {
  const { first_line, second_line, country, zip, city, state } = payor.address;
  return {
    payor_code: payor.code,
    name: payor.name,
    aliases: payor.aliases,
    org_address: { first_line, ...(second_line ? { second_line } : {}), country, zip, city, state },
    source: payor.teamId === null ? 'platform' : 'team',
  };
}
