import { Module } from '@nestjs/common';
import { TeamsModule } from '../teams/teams.module';
import { EtlPipelinesController } from './etl-pipelines.controller';
import { EtlPipelinesRepository } from './etl-pipelines.repository';
import { EtlPipelinesService } from './etl-pipelines.service';

@Module({
  imports: [TeamsModule],
  controllers: [EtlPipelinesController],
  providers: [EtlPipelinesRepository, EtlPipelinesService],
  exports: [EtlPipelinesRepository, EtlPipelinesService],
})
export class EtlPipelinesModule {}
