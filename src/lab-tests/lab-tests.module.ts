import { Module } from '@nestjs/common';
import { LabAccountsService } from './lab-accounts.service';
import { LabAccountsRepository, LabCatalogRepository, LabTestsRepository } from './lab-catalog.repository';
import { LabTestPagesController, LabTestsController } from './lab-tests.controller';
import { LabTestsService } from './lab-tests.service';

/**
 * The lab catalog. For the order module:
 * - `LabTestsService.findOrderable(team, labTestId)`, `.checkMarkersBelongToLab(markerIds, labId)`,
 *   `.resolveOrderSet(team, orderSet)`;
 * - `LabAccountsService.resolveForOrder(team, {labId, labAccountId?, allowPending?, excludeAccountId?})`,
 *   `.requiresPhysician(account, labSlug, now)`, `.checkBillingAllowed(account, billingType)`;
 * - `referenceRangeFor` / `interpretNumericResult` (./reference-ranges) for results.
 */
@Module({
  controllers: [LabTestsController, LabTestPagesController],
  providers: [LabCatalogRepository, LabTestsRepository, LabAccountsRepository, LabTestsService, LabAccountsService],
  exports: [LabCatalogRepository, LabTestsRepository, LabAccountsRepository, LabTestsService, LabAccountsService],
})
export class LabTestsModule {}
