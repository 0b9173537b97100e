import { Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { notFound } from '../common/errors';
import { LabAccountsService } from '../lab-tests/lab-accounts.service';
import { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import { renderRequisitionPdf } from './requisition-pdf';
import { renderSpecimenLabelsPdf } from './specimen-labels-pdf';
import { type RequisitionOrder, type RequisitionReader, RequisitionOrders } from './requisition-orders';
import type { RequisitionPatient } from './requisition.types';

/**
 * An order's requisition form (`GET /v3/order/{id}/requisition/pdf` and its signed link), rendered
 * from the order as it is now: 404 {detail} until the requisition is created and the kit registered.
 */
@Injectable()
export class RequisitionFormsService {
  constructor(
    private readonly orders: RequisitionOrders,
    private readonly catalog: LabCatalogRepository,
    private readonly labAccounts: LabAccountsService,
  ) {}

  async render(reader: RequisitionReader, orderId: string): Promise<Buffer> {
    const { order, patient } = await this.requireForm(reader, orderId, {
      notCreated: 'Requisition (not created yet)',
      notRegistered: 'Requisition (the kit is not registered)',
    });
    const [lab] = await this.catalog.labsByIds([order.labId]);
    const account = await this.labAccounts.requireVisible(reader as TeamPrincipal, order.labAccountId).catch(() => null);
    const tests = await order.tests();
    await this.orders.logRead(reader, order.id);
    return renderRequisitionPdf({
      orderId: order.id,
      createdAt: order.createdAt,
      lab: { name: lab?.name ?? String(order.labId), slug: lab?.slug ?? String(order.labId) },
      account: { id: order.labAccountId, accountName: account?.accountName ?? order.labAccountId, defaultClinicalNotes: account?.defaultClinicalNotes ?? null },
      patient,
      physician: order.physician,
      tests,
      clinicalNotes: order.clinicalNotes,
      icdCodes: order.icdCodes,
      sampleId: order.sampleId,
      billing: order.billing,
      priority: order.priority,
      aoeAnswers: order.aoeAnswers,
      physicianSignature: order.physicianSignature,
      consents: order.consents,
    });
  }

  /**
   * Specimen labels for the order's tubes (`GET /v3/order/{id}/labels/pdf`): 404 {detail} until
   * the requisition is created and the patient known, as for the form itself.
   */
  async renderLabels(reader: RequisitionReader, orderId: string, labels: { count: number; collectedAt: string }): Promise<Buffer> {
    const { order, patient } = await this.requireForm(reader, orderId, {
      notCreated: 'Labels (the requisition is not created yet)',
      notRegistered: 'Labels (the kit is not registered)',
    });
    const [lab] = await this.catalog.labsByIds([order.labId]);
    await this.orders.logRead(reader, order.id);
    return renderSpecimenLabelsPdf({
      orderId: order.id,
      sampleId: order.sampleId,
      patient,
      labName: lab?.name ?? String(order.labId),
      collectedAt: labels.collectedAt,
      count: labels.count,
    });
  }

  /**
   * The reader's order once its requisition exists and its patient is known; otherwise 404
   * {detail} with what is missing, in the caller's words.
   */
  private async requireForm(
    reader: RequisitionReader,
    orderId: string,
    missing: { notCreated: string; notRegistered: string },
  ): Promise<{ order: RequisitionOrder; patient: RequisitionPatient }> {
    const order = await this.orders.find(reader, orderId);
    if (!order) throw notFound('Order');
    if (!order.requisitionCreated) throw notFound(missing.notCreated);
    if (!order.patient) throw notFound(missing.notRegistered);
    return { order, patient: order.patient };
  }

  /** The form behind a signed link: the order's own team stands in for the reader (no API key). */
  async renderForLink(orderId: string): Promise<Buffer | null> {
    const owner = await this.orders.ownerOf(orderId);
    if (!owner) return null;
    return this.render({ teamId: owner.teamId, environment: owner.environment, apiKeyId: null }, orderId);
  }
}
