import { Module } from '@nestjs/common';
import { TeamSettingsRepository } from './team-settings.repository';

/** Orgs and teams as the main API and the workers read them (the management API owns their changes). */
@Module({
  providers: [TeamSettingsRepository],
  exports: [TeamSettingsRepository],
})
export class TenancyModule {}
