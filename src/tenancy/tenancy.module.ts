import { Module } from '@nestjs/common';
import { SourcePrioritiesRepository } from './source-priorities.repository';
import { TeamSettingsRepository } from './team-settings.repository';

/**
 * Orgs and teams as the main API and the workers read them (the management API owns their
 * changes), and the team's source priorities (`/v2/team/source/priorities`), which health-data's
 * reads follow.
 */
@Module({
  providers: [TeamSettingsRepository, SourcePrioritiesRepository],
  exports: [TeamSettingsRepository, SourcePrioritiesRepository],
})
export class TenancyModule {}
