import { Injectable } from '@nestjs/common';
import { TeamSettingsRepository } from '../tenancy/team-settings.repository';
import { type PortalBrand, portalBrand } from './portal-brand';

/** A team's portal brand from its settings (management API: logo_url, brand_information). */
@Injectable()
export class PortalBrandService {
  constructor(private readonly teams: TeamSettingsRepository) {}

  async of(teamId: string): Promise<PortalBrand> {
    return portalBrand(await this.teams.brandOf(teamId));
  }
}
