import { Module } from '@nestjs/common';
import { COURIER_ADAPTER } from '../adapters/courier/courier.adapter';
import { SandboxCourierAdapter } from '../adapters/courier/sandbox-courier.adapter';
import { LAB_ADAPTER } from '../adapters/lab/lab.adapter';
import { Hl7LabAdapter } from '../adapters/lab/hl7-lab.adapter';
import { LabRouter } from '../adapters/lab/lab-router.adapter';
import { Hl7InboundDelivery } from '../hl7/hl7-inbound-delivery';
import { Hl7InboundService } from '../hl7/hl7-inbound.service';
import { Hl7InboundStore } from '../hl7/hl7-inbound-store';
import { Hl7Module } from '../hl7/hl7.module';
import { HL7_ORDERS } from '../hl7/hl7-orders';
import { OrderHl7Reports } from './order-hl7-reports';
import { OrderLabResults } from './order-lab-results';
import { OrderSandboxLabCatalog } from './order-sandbox-lab-catalog';
import { OrderSandboxPartners } from './order-sandbox-partners';
import { IdempotencyModule } from '../common/idempotency';
import { PhiReadAudit } from '../common/phi-access-log';
import { EventsModule } from '../events/events.module';
import { LabTestsModule } from '../lab-tests/lab-tests.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { UsersModule } from '../users/users.module';
import { OrderTransitionsService } from './order-transitions.service';
import { OrderRecreationService } from './order-recreation.service';
import { OrderViews } from './order-views';
import { OrderReconciler } from './order-reconciler';
import { OrderWorkflows } from './order-workflows';
import { PhysicianRule } from './physician-rule';
import { OrdersController, OrdersListController } from './orders.controller';
import { OrderListRepository } from './order-list.repository';
import { OrderCreationRepository } from './order-creation.repository';
import { OrderReadModel } from './order-read-model';
import { OrderScanRepository } from './order-scan.repository';
import { OrdersRepository } from './orders.repository';
import { OrderCommandsService } from './order-commands.service';
import { OrderCreationService } from './order-creation.service';
import { OrderQueriesService } from './order-queries.service';
import { OrderRequisitions } from './order-requisitions';
import { StrandedOrdersRepository } from './stranded-orders.repository';
import { PartnerWebhooksController } from './partner-webhooks.controller';
import { PartnerSignatureGuard } from '../adapters/partner-signature';
import { PartnerWebhooksService } from './partner-webhooks';
import { RequisitionLinks } from '../requisitions/requisition-links';
import { RequisitionLinksController } from '../requisitions/requisition-links.controller';
import { RequisitionFormsService } from '../requisitions/requisition-forms.service';
import { RequisitionOrders } from '../requisitions/requisition-orders';

/**
 * Lab orders. The API side (controllers; the creation, commands and queries services) writes orders and talks to their
 * workflows; the worker side (OrderTransitionsService behind the activities, OrderReconciler)
 * records transitions and calls the courier and lab adapters. Both run from this module; the
 * reconciler only runs when a worker starts it.
 */
@Module({
  imports: [LabTestsModule, EventsModule, IdempotencyModule, UsersModule, TenancyModule, Hl7Module],
  controllers: [OrdersController, OrdersListController, PartnerWebhooksController, RequisitionLinksController],
  providers: [
    OrdersRepository,
    OrderListRepository,
    OrderScanRepository,
    OrderReadModel,
    OrderCreationRepository,
    PhiReadAudit,
    OrderViews,
    OrderCreationService,
    OrderCommandsService,
    OrderQueriesService,
    OrderWorkflows,
    OrderReconciler,
    StrandedOrdersRepository,
    OrderTransitionsService,
    PartnerWebhooksService,
    PartnerSignatureGuard,
    OrderRecreationService,
    PhysicianRule,
    RequisitionLinks,
    RequisitionFormsService,
    OrderRequisitions,
    { provide: RequisitionOrders, useExisting: OrderRequisitions },
    { provide: COURIER_ADAPTER, useClass: SandboxCourierAdapter },
    Hl7LabAdapter,
    { provide: LAB_ADAPTER, useClass: LabRouter },
    OrderHl7Reports,
    OrderLabResults,
    OrderSandboxLabCatalog,
    OrderSandboxPartners,
    { provide: HL7_ORDERS, useExisting: OrderHl7Reports },
    Hl7InboundService,
    Hl7InboundStore,
    Hl7InboundDelivery,
  ],
  exports: [
    Hl7InboundService,
    Hl7InboundDelivery,
    OrderHl7Reports,
    OrderSandboxLabCatalog,
    OrderSandboxPartners,
    OrderCommandsService,
    OrderQueriesService,
    OrderTransitionsService,
    OrderReconciler,
    OrderWorkflows,
    OrdersRepository,
    PartnerSignatureGuard,
  ],
})
export class OrdersModule {}
