import { Module } from '@nestjs/common';
import { Hl7ReportPdfs } from './hl7-report-pdfs';
import { Hl7Repository } from './hl7.repository';

/**
 * HL7 v2 labs: their interfaces and the messages exchanged with them. The listener's service
 * (Hl7InboundService) is provided where orders are reachable (OrdersModule binds HL7_ORDERS).
 */
@Module({
  providers: [Hl7Repository, Hl7ReportPdfs],
  exports: [Hl7Repository, Hl7ReportPdfs],
})
export class Hl7Module {}
