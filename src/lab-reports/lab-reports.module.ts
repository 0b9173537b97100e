import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { LabTestsModule } from '../lab-tests/lab-tests.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { UsersModule } from '../users/users.module';
import { LabReportProcessingService } from './lab-report-processing.service';
import { LabReportQueriesService } from './lab-report-queries.service';
import { LabReportReviewsService } from './lab-report-reviews.service';
import { LabReportStarter } from './lab-report-starter';
import { LabReportUploadsService } from './lab-report-uploads.service';
import { LabReportViews } from './lab-report-views';
import { LabReportWorkflows } from './lab-report-workflows';
import { LabReportsController } from './lab-reports.controller';
import { LabReportsRepository } from './lab-reports.repository';

/**
 * Lab report parsing jobs. The API side uploads reports and reads jobs; the worker side (the
 * processing service behind activities/lab-reports.ts) runs on the lab report task queue.
 */
@Module({
  imports: [EventsModule, UsersModule, TenancyModule, LabTestsModule],
  controllers: [LabReportsController],
  providers: [
    LabReportsRepository,
    LabReportViews,
    LabReportWorkflows,
    LabReportUploadsService,
    LabReportQueriesService,
    LabReportReviewsService,
    LabReportProcessingService,
    LabReportStarter,
  ],
  exports: [LabReportWorkflows, LabReportProcessingService, LabReportStarter],
})
export class LabReportsModule {}
