import { Injectable, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { hl7Metrics } from './hl7-metrics';
import { Hl7ReportPdfs } from './hl7-report-pdfs';
import { Hl7Repository } from './hl7.repository';

/** The waiting counts of labflow_hl7_waiting_messages, read from this process's database on each scrape. */
@Injectable()
class Hl7WaitingMetrics implements OnModuleInit, OnModuleDestroy {
  private unwatch: (() => void) | null = null;

  constructor(private readonly repository: Hl7Repository) {}

  onModuleInit(): void {
    this.unwatch = hl7Metrics.watchWaiting(() => this.repository.waitingCounts());
  }

  onModuleDestroy(): void {
    this.unwatch?.();
  }
}

/**
 * HL7 v2 labs: their interfaces and the messages exchanged with them. The listener's service
 * (Hl7InboundService) is provided where orders are reachable (OrdersModule binds HL7_ORDERS).
 */
@Module({
  providers: [Hl7Repository, Hl7ReportPdfs, Hl7WaitingMetrics],
  exports: [Hl7Repository, Hl7ReportPdfs],
})
export class Hl7Module {}
