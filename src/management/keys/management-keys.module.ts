import { Module } from '@nestjs/common';
import { TeamsModule } from '../teams/teams.module';
import { ManagementKeysController } from './management-keys.controller';
import { ManagementKeysRepository } from './management-keys.repository';
import { ManagementKeysService } from './management-keys.service';

@Module({
  imports: [TeamsModule],
  controllers: [ManagementKeysController],
  providers: [ManagementKeysRepository, ManagementKeysService],
  exports: [ManagementKeysRepository, ManagementKeysService],
})
export class ManagementKeysModule {}
