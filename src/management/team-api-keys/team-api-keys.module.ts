import { Module } from '@nestjs/common';
import { TeamsModule } from '../teams/teams.module';
import { TeamApiKeysController } from './team-api-keys.controller';
import { TeamApiKeysRepository } from './team-api-keys.repository';
import { TeamApiKeysService } from './team-api-keys.service';

@Module({
  imports: [TeamsModule],
  controllers: [TeamApiKeysController],
  providers: [TeamApiKeysRepository, TeamApiKeysService],
  exports: [TeamApiKeysRepository, TeamApiKeysService],
})
export class TeamApiKeysModule {}
