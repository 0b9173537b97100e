import { Module } from '@nestjs/common';
import { Hl7LabAdapter } from '../../adapters/lab/hl7-lab.adapter';
import { OutboxService } from '../../events/outbox.service';
import { Hl7InboundDelivery } from '../../hl7/hl7-inbound-delivery';
import { Hl7InboundService } from '../../hl7/hl7-inbound.service';
import { Hl7InboundStore } from '../../hl7/hl7-inbound-store';
import { Hl7Module } from '../../hl7/hl7.module';
import { HL7_ORDERS } from '../../hl7/hl7-orders';
import { LabCatalogRepository } from '../../lab-tests/lab-catalog.repository';
import { LabTestsRepository } from '../../lab-tests/lab-tests.repository';
import { OrderHl7Reports } from '../../orders/order-hl7-reports';
import { OrderLabResults } from '../../orders/order-lab-results';
import { OrderListRepository } from '../../orders/order-list.repository';
import { OrderReadModel } from '../../orders/order-read-model';
import { OrderViews } from '../../orders/order-views';
import { OrderWorkflows } from '../../orders/order-workflows';
import { OrdersRepository } from '../../orders/orders.repository';
import { UsersRepository } from '../../users/users.repository';
import { TeamsModule } from '../teams/teams.module';
import { Hl7MessagesController } from './hl7-messages.controller';
import { Hl7MessagesService } from './hl7-messages.service';

/**
 * The management routes of HL7 messages. A re-matched message goes to its order as the
 * listener's would (Hl7InboundService → OrderHl7Reports: a signal to the order's workflow, or a
 * correction of a completed order's results), so this module provides those pieces itself rather
 * than importing OrdersModule, whose API controllers the management app must not serve.
 */
@Module({
  imports: [TeamsModule, Hl7Module],
  controllers: [Hl7MessagesController],
  providers: [
    Hl7MessagesService,
    Hl7InboundService,
    Hl7InboundStore,
    Hl7InboundDelivery,
    OrderHl7Reports,
    { provide: HL7_ORDERS, useExisting: OrderHl7Reports },
    OrderLabResults,
    OrdersRepository,
    OrderReadModel,
    OrderListRepository,
    OrderViews,
    OrderWorkflows,
    UsersRepository,
    OutboxService,
    LabTestsRepository,
    LabCatalogRepository,
    Hl7LabAdapter,
  ],
})
export class Hl7MessagesManagementModule {}
