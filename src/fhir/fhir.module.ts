import { Module } from '@nestjs/common';
import { PhiReadAudit } from '../common/phi-access-log';
import { FhirController } from './fhir.controller';
import { FhirReadModel } from './fhir-read-model';
import { FhirObservations } from './fhir-observations';
import { FhirOrders } from './fhir-orders';
import { FhirService } from './fhir.service';

/** FHIR R4 read API over users, orders, results, insurances, appointments and wearable samples (docs/fhir.md). */
@Module({
  controllers: [FhirController],
  providers: [FhirService, FhirOrders, FhirObservations, FhirReadModel, PhiReadAudit],
})
export class FhirModule {}
