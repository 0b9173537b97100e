import { Module } from '@nestjs/common';
import { TeamsModule } from '../teams/teams.module';
import { CustomCredentialsController } from './custom-credentials.controller';
import { CustomCredentialsRepository } from './custom-credentials.repository';
import { CustomCredentialsService } from './custom-credentials.service';

@Module({
  imports: [TeamsModule],
  controllers: [CustomCredentialsController],
  providers: [CustomCredentialsRepository, CustomCredentialsService],
})
export class CustomCredentialsModule {}
