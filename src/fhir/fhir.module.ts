import { Module } from '@nestjs/common';
import { PhiReadAudit } from '../common/phi-access-log';
import { FhirController } from './fhir.controller';
import { FhirReadModel } from './fhir-read-model';
import { FhirExportReadModel } from './fhir-export-read-model';
import { FhirLabReportReads } from './fhir-lab-report-reads';
import { FhirLabReports } from './fhir-lab-reports';
import { FhirObservations } from './fhir-observations';
import { FhirOrders } from './fhir-orders';
import { FhirService } from './fhir.service';
import { FhirExportController } from './export/fhir-export.controller';
import { FhirExportRunner } from './export/fhir-export-runner';
import { FhirExportWearables } from './export/fhir-export-wearables';
import { FhirExportWorkflows } from './export/fhir-export-workflows';
import { FhirExportsRepository } from './export/fhir-exports.repository';
import { FhirExportsService } from './export/fhir-exports.service';

/**
 * FHIR R4 read API over users, orders, results, parsed lab reports, insurances, appointments and wearable samples,
 * and its Bulk Data export (docs/fhir.md); the worker runs the export's steps (FhirExportRunner).
 */
@Module({
  controllers: [FhirController, FhirExportController],
  providers: [
    FhirService,
    FhirOrders,
    FhirObservations,
    FhirLabReports,
    FhirLabReportReads,
    FhirReadModel,
    FhirExportReadModel,
    PhiReadAudit,
    FhirExportsService,
    FhirExportsRepository,
    FhirExportWorkflows,
    FhirExportRunner,
    FhirExportWearables,
  ],
  exports: [FhirExportRunner],
})
export class FhirModule {}
