import { Module } from '@nestjs/common';
import { TeamLookup } from './team-lookup';
import { TeamsController } from './teams.controller';
import { TeamsRepository } from './teams.repository';
import { TeamsService } from './teams.service';

@Module({
  controllers: [TeamsController],
  providers: [TeamsRepository, TeamsService, TeamLookup],
  exports: [TeamsRepository, TeamLookup, TeamsService],
})
export class TeamsModule {}
