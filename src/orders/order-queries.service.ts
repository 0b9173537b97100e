import { HttpStatus, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { PhiReadAudit } from '../common/phi-access-log';
import { ApiError, notFound } from '../common/errors';
import { eitherSpelling } from '../common/schemas';
import { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import { LabTestsService } from '../lab-tests/lab-tests.service';
import {
  type BiomarkerResult,
  buildLabResults,
  buildResultMetadata,
  type LabResultsMetadata,
  type LabResultsRaw,
  type MissingBiomarkerResult,
  renderResultReportPdf,
  type ResultInterpretation,
} from '../results';
import { collectionMethodOf } from '../../workflows/order/order-statuses';
import type { OrderEntity } from './order.entities';
import { OrderViews, type OrderView } from './order-views';
import type { ListOrdersQuery, PatientDetails, ShippingAddress } from './orders.dto';
import { type OrderFilters, OrderListRepository } from './order-list.repository';
import { type OrderRead, OrderReadModel } from './order-read-model';
import { OrdersRepository, type Scope } from './orders.repository';
import { Hl7ReportPdfs } from '../hl7/hl7-report-pdfs';
import { OrderLabResults } from './order-lab-results';

/** The order API's reads: one order, the list, the results. Reads come from Postgres, never from workflows. */
@Injectable()
export class OrderQueriesService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly orderList: OrderListRepository,
    private readonly readModel: OrderReadModel,
    private readonly views: OrderViews,
    private readonly catalog: LabCatalogRepository,
    private readonly labTests: LabTestsService,
    private readonly cipher: PhiCipher,
    private readonly audit: PhiReadAudit,
    private readonly labPdfs: Hl7ReportPdfs,
    private readonly labResults: OrderLabResults,
  ) {}

  /**
   * The order as of one snapshot. Its PHI read audit row is written (PhiReadAudit, group commit)
   * while the view is built, and the view is returned only once the row has committed: a failed
   * audit fails the read.
   */
  async get(team: TeamPrincipal, orderId: string): Promise<OrderView> {
    const read = await this.readModel.readForView(team, orderId);
    if (!read) throw notFound('Order');
    const [view] = await Promise.all([this.views.fromRead(read), this.audit.record({ teamId: team.teamId, apiKeyId: team.apiKeyId }, 'order', read.order.id)]);
    return view;
  }

  async list(team: TeamPrincipal, query: ListOrdersQuery) {
    const filters: OrderFilters = {
      createdFrom: toDate(query.start_date),
      createdTo: toDate(query.end_date, true),
      updatedFrom: toDate(query.updated_start_date),
      updatedTo: toDate(query.updated_end_date, true),
      lowLevelStatuses: eitherSpelling(query.status, query['status[]']),
      collectionMethods: eitherSpelling(query.order_type, query['order_type[]']),
      interpretation: query.interpretation,
      isCritical: query.is_critical,
      userId: query.user_id,
      orderIds: eitherSpelling(query.order_ids, query['order_ids[]']),
      orderTransactionId: query.order_transaction_id,
      activationTypes: eitherSpelling(query.order_activation_types, query['order_activation_types[]']),
      orderBy: query.order_key === 'last_status' ? 'updated_at' : 'created_at',
      direction: query.order_direction === 'asc' ? 'ASC' : 'DESC',
    };
    const offset = (query.page - 1) * query.size;
    const { reads, total } =
      query.patient_name || query.shipping_recipient_name || query.search_input || query.order_key === 'patient_name'
        ? await this.pageByName(team, filters, query, offset)
        : await this.readModel.readPage(team, filters, { offset, limit: query.size });
    // Every order of the page is audited (PhiReadAudit, as GET /v3/order/{id}) before any is shown.
    const by = { teamId: team.teamId, apiKeyId: team.apiKeyId };
    const [orders] = await Promise.all([
      Promise.all(reads.map((read) => this.views.fromRead(read))),
      Promise.all(reads.map((read) => this.audit.record(by, 'order', read.order.id))),
    ]);
    return { orders, total, page: query.page, size: query.size };
  }

  /**
   * A page of the list searched (`search_input`: a prefix of the order, sample or user id, a part
   * of the patient's or the shipping recipient's name, or the patient's date of birth), filtered
   * by patient or shipping recipient name, or sorted by patient name. Names and birth dates are
   * encrypted at rest, so every order the other filters match is decrypted to search, filter and
   * sort them; then the page's orders are read. Both reads in one snapshot, so the total and the
   * page agree.
   */
  private pageByName(team: TeamPrincipal, filters: OrderFilters, query: ListOrdersQuery, offset: number): Promise<{ reads: OrderRead[]; total: number }> {
    return this.orderList.snapshot(async (manager) => {
      const search = query.search_input?.toLowerCase();
      // Only what is asked about is decrypted.
      const byPatient = search !== undefined || query.patient_name !== undefined || query.order_key === 'patient_name';
      const byRecipient = search !== undefined || query.shipping_recipient_name !== undefined;
      const named = (await this.orderList.namesOf(team, filters, manager)).map((order) => {
        const patient = byPatient && order.patientDetailsEnc ? this.cipher.decryptJson<PatientDetails>(order.patientDetailsEnc) : null;
        const recipient = byRecipient && order.shippingDetailsEnc ? this.cipher.decryptJson<ShippingAddress>(order.shippingDetailsEnc).receiver_name : '';
        return { ...order, name: patient ? `${patient.first_name} ${patient.last_name}` : '', dob: patient?.dob ?? null, recipient };
      });
      const contains = (value: string, needle: string | undefined) => needle === undefined || value.toLowerCase().includes(needle.toLowerCase());
      const found = (entry: (typeof named)[number]) =>
        search === undefined ||
        [entry.id, entry.sampleId ?? '', entry.userId].some((id) => id.toLowerCase().startsWith(search)) ||
        contains(entry.name, search) ||
        contains(entry.recipient, search) ||
        entry.dob === query.search_input;
      const matching = named.filter(
        (entry) => found(entry) && contains(entry.name, query.patient_name) && contains(entry.recipient, query.shipping_recipient_name),
      );
      if (query.order_key === 'patient_name') {
        const sign = query.order_direction === 'asc' ? 1 : -1;
        matching.sort((a, b) => sign * a.name.localeCompare(b.name));
      }
      const pageIds = matching.slice(offset, offset + query.size).map((entry) => entry.id);
      if (pageIds.length === 0) return { reads: [], total: matching.length };
      const { reads } = await this.readModel.readPage(team, { ...filters, orderIds: pageIds }, { offset: 0, limit: pageIds.length }, manager);
      const byId = new Map(reads.map((read) => [read.order.id, read]));
      return { reads: pageIds.flatMap((id) => byId.get(id) ?? []), total: matching.length };
    });
  }

  /** `GET /v3/order/{id}/result`: the lab's report (LabResultsRaw). */
  async results(team: TeamPrincipal, orderId: string): Promise<LabResultsRaw> {
    const { metadata, stored, sample } = await this.report(team, orderId);
    return buildLabResults(metadata, stored.results, stored.missingResults, sample);
  }

  /**
   * `GET /v3/order/{id}/result/pdf`: the same report, printable — the lab's own when it embedded
   * one in its results (an HL7 lab's OBX ED), else labflow's rendering.
   */
  async resultPdf(team: TeamPrincipal, orderId: string): Promise<Buffer> {
    const results = await this.results(team, orderId);
    return (await this.labPdfs.labPdfOf(orderId)) ?? renderResultReportPdf(results, orderId);
  }

  /** `GET /v3/order/{id}/collection_instruction_pdf`: how the order's sample is collected. */
  async collectionInstructionsPdf(team: TeamPrincipal, orderId: string): Promise<Buffer> {
    const order = await this.requireOrder(team, orderId);
    return this.labTests.collectionInstructionsPdf(team, order.labTestId, {
      id: order.id,
      sampleId: order.sampleId,
      method: collectionMethodOf(order.flow),
      createdAt: order.createdAt,
    });
  }

  /**
   * `GET /v3/order/{id}/abn_pdf`: an Advance Beneficiary Notice is only for an order that needs
   * one (`has_abn`); labflow's labs ask for none, so every order answers 404 saying so.
   */
  async abnPdf(team: TeamPrincipal, orderId: string): Promise<never> {
    const order = await this.requireOrder(team, orderId);
    throw new ApiError(
      HttpStatus.NOT_FOUND,
      order.hasAbn ? 'This order needs an ABN, but its lab provides no ABN form.' : 'This order has no ABN: has_abn is false (its lab asks for none).',
    );
  }

  /** `GET /v3/order/{id}/result/metadata`. */
  async resultMetadata(team: TeamPrincipal, orderId: string): Promise<LabResultsMetadata> {
    return (await this.report(team, orderId)).metadata;
  }

  /** The team's order; 404 {detail} when the team has none with this id. */
  async requireOrder(scope: Scope, orderId: string, manager?: EntityManager): Promise<OrderEntity> {
    const order = await this.orders.findScoped(scope, orderId, manager);
    if (!order) throw notFound('Order');
    return order;
  }

  /**
   * The stored results of a completed order, or while it is in `partial_results` at an HL7 lab
   * the lab's results so far (status `partial`), mapped from its messages on each read.
   */
  private async storedOrPartial(order: OrderEntity) {
    const stored = await this.orders.resultsOf(order.id);
    if (stored) {
      return {
        ...stored,
        results: this.cipher.decryptJson<BiomarkerResult[]>(stored.resultsEnc),
        missingResults: stored.missingResults as unknown as MissingBiomarkerResult[],
      };
    }
    const partial = await this.labResults.partial(order);
    if (!partial) return null;
    const events = (await this.orders.eventsOf([order.id])).get(order.id) ?? [];
    const latest = events.at(-1)?.createdAt ?? new Date();
    return {
      ...partial,
      dateCollected: events.find((event) => event.status.endsWith('.draw_completed') || event.status.endsWith('.transit_lab'))?.createdAt ?? null,
      dateReceived: events.find((event) => event.status.endsWith('.delivered_to_lab'))?.createdAt ?? null,
      dateReported: latest,
    };
  }

  private async report(team: TeamPrincipal, orderId: string) {
    const order = await this.requireOrder(team, orderId);
    const stored = await this.storedOrPartial(order);
    if (!stored) throw notFound('Results (not available yet)');
    const details = order.patientDetailsEnc ? this.cipher.decryptJson<PatientDetails>(order.patientDetailsEnc) : null;
    const [lab] = await this.catalog.labsByIds([order.labId]);
    await this.orders.logPhiAccess({ teamId: team.teamId, apiKeyId: team.apiKeyId }, 'read', [order.id]);
    const metadata = buildResultMetadata({
      patient: { firstName: details?.first_name ?? '', lastName: details?.last_name ?? '', dob: details?.dob ?? '1900-01-01' },
      provider: order.physician ? { firstName: order.physician.first_name, lastName: order.physician.last_name } : null,
      laboratory: lab?.name ?? String(order.labId),
      clia: lab?.cliaNumber ?? null,
      specimenNumber: order.sampleId ?? order.id,
      collectedAt: stored.dateCollected,
      receivedAt: stored.dateReceived,
      reportedAt: stored.dateReported,
      status: stored.status,
      interpretation: stored.interpretation as ResultInterpretation,
      patientId: order.userId,
      accountId: order.labAccountId,
    });
    // The one sample the order sent, the lab that performed its tests, and when.
    const sample = {
      id: metadata.specimen_number,
      data: {
        sample_id: metadata.specimen_number,
        ...(metadata.date_collected ? { date_collected: metadata.date_collected } : {}),
        ...(metadata.date_received ? { date_received: metadata.date_received } : {}),
        date_reported: metadata.date_reported,
        ...(lab
          ? {
              performing_laboratories: {
                [lab.slug]: {
                  name: lab.name,
                  address: { first_line: lab.firstLineAddress, country: 'US', zip: lab.zipcode, city: lab.city, state: lab.state },
                },
              },
            }
          : {}),
      },
    };
    return { metadata, stored, sample };
  }
}

/** A date or datetime query value; a bare end date includes that whole day. */
function toDate(value: string | undefined, endOfDay = false): Date | undefined {
  if (!value) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return new Date(`${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z`);
  return new Date(value);
}
