import { Module } from '@nestjs/common';
import { AggregationRepository } from '../../health-data/aggregation.repository';
import { AggregationService } from '../../health-data/aggregation.service';
import { ContinuousQueriesRepository } from '../../health-data/continuous-queries/continuous-queries.repository';
import { ContinuousQueriesService } from '../../health-data/continuous-queries/continuous-queries.service';
import { UsersRepository } from '../../users/users.repository';
import { TeamsModule } from '../teams/teams.module';
import { ContinuousQueriesManagementController } from './continuous-queries.controller';
import { ContinuousQueriesManagementService } from './continuous-queries.service';

/**
 * Continuous query definitions on the management API. The health-data services are provided
 * here directly (as stranded orders provide their repository) rather than by importing
 * HealthDataModule, whose API controllers must not be served by the management app.
 */
@Module({
  imports: [TeamsModule],
  controllers: [ContinuousQueriesManagementController],
  providers: [
    ContinuousQueriesManagementService,
    ContinuousQueriesRepository,
    ContinuousQueriesService,
    AggregationRepository,
    AggregationService,
    UsersRepository,
  ],
})
export class ContinuousQueriesManagementModule {}
