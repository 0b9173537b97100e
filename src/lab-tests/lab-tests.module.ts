import { Module } from '@nestjs/common';
import { LabAccountsService } from './lab-accounts.service';
import { LabCatalogRepository } from './lab-catalog.repository';
import { LabTestsRepository } from './lab-tests.repository';
import { LabAccountsRepository } from './lab-accounts.repository';
import { LabTestInstructionsController, LabTestPagesController, LabTestsController } from './lab-tests.controller';
import { LabMarkersService } from './lab-markers.service';
import { LabTestsService } from './lab-tests.service';
import { OrderableLabTestsService } from './orderable-lab-tests.service';

/**
 * The lab catalog. For the order module:
 * - `OrderableLabTestsService.findOrderable(team, labTestId)`, `.checkMarkersBelongToLab(markerIds, labId)`,
 *   `.resolveOrderSet(team, orderSet)`;
 * - `LabAccountsService.resolveForOrder(team, {labId, labAccountId?, allowPending?, excludeAccountId?})`,
 *   `.requiresPhysician(account, labSlug, now)`, `.checkBillingAllowed(account, billingType)`;
 * - `referenceRangeFor` / `interpretNumericResult` (./reference-ranges) for results.
 */
@Module({
  controllers: [LabTestsController, LabTestPagesController, LabTestInstructionsController],
  providers: [
    LabCatalogRepository,
    LabTestsRepository,
    LabAccountsRepository,
    LabMarkersService,
    LabTestsService,
    OrderableLabTestsService,
    LabAccountsService,
  ],
  exports: [LabCatalogRepository, LabTestsRepository, LabAccountsRepository, OrderableLabTestsService, LabAccountsService, LabTestsService],
})
export class LabTestsModule {}
