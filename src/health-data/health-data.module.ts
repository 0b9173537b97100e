import { AggregationController } from './aggregation.controller';
import { TenancyModule } from '../tenancy/tenancy.module';
import { AggregationRepository } from './aggregation.repository';
import { AggregationService } from './aggregation.service';
import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { UsersModule } from '../users/users.module';
import { TimeseriesController } from './timeseries.controller';
import { HealthDataIngestionService } from './health-data-ingestion.service';
import { IntrospectionController } from './introspection.controller';
import { IntrospectionService } from './introspection.service';
import { DevicesController, SummariesController } from './summaries.controller';
import { SummariesRepository } from './summaries.repository';
import { SummaryQueriesService } from './summary-queries.service';
import { TimeseriesQueriesService } from './timeseries-queries.service';
import { TimeseriesRepository } from './timeseries.repository';
import { ContinuousQueriesController } from './continuous-queries/continuous-queries.controller';
import { ContinuousQueriesRepository } from './continuous-queries/continuous-queries.repository';
import { ContinuousQueriesService } from './continuous-queries/continuous-queries.service';
import { ContinuousQueryRunner } from './continuous-queries/continuous-query-runner';

/**
 * Wearable and health data (spec §Wearable data objects): ingestion, storage and reads of every
 * timeseries resource and summary type in registry.ts, and their `daily.data.*` events.
 */
@Module({
  imports: [UsersModule, EventsModule, TenancyModule],
  controllers: [TimeseriesController, SummariesController, DevicesController, IntrospectionController, AggregationController, ContinuousQueriesController],
  providers: [
    TimeseriesRepository,
    SummariesRepository,
    HealthDataIngestionService,
    TimeseriesQueriesService,
    SummaryQueriesService,
    IntrospectionService,
    AggregationRepository,
    AggregationService,
    ContinuousQueriesRepository,
    ContinuousQueriesService,
    ContinuousQueryRunner,
  ],
  exports: [HealthDataIngestionService, TimeseriesRepository, ContinuousQueriesService, ContinuousQueryRunner],
})
export class HealthDataModule {}
