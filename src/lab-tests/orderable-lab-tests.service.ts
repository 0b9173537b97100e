import { Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { notFound, RequestValidationError, validationError, type ValidationIssue } from '../common/errors';
import type { LabEntity, LabTestEntity, MarkerEntity } from './lab-catalog.entities';
import { LabCatalogRepository } from './lab-catalog.repository';
import { LabTestsRepository } from './lab-tests.repository';
import { toLabTestView } from './lab-catalog.views';
import { LabAccountsService } from './lab-accounts.service';
import { type Loc, LabMarkersService, unique } from './lab-markers.service';
import type { LabTestView, OrderSetInput } from './lab-tests.dto';

/** Everything an order needs about the lab test it orders. */
export interface OrderableLabTest {
  labTest: LabTestEntity;
  lab: LabEntity;
  /** The test's markers in order, panels as panels. */
  markers: MarkerEntity[];
  /** Every biomarker that will report a result (panels expanded), each once. */
  biomarkers: MarkerEntity[];
  /** The lab test as the API shows it (ClientFacingLabTest). */
  view: LabTestView;
}

/** An order set resolved to one lab and its markers. */
export interface ResolvedOrderSet {
  lab: LabEntity;
  labTests: LabTestEntity[];
  /** The markers of the lab tests, then the add-on markers; each once. */
  markers: MarkerEntity[];
  /** Every biomarker that will report a result, each once. */
  biomarkers: MarkerEntity[];
}

/** What may be ordered: lab tests and order sets, checked and resolved for the order module. */
@Injectable()
export class OrderableLabTestsService {
  constructor(
    private readonly catalog: LabCatalogRepository,
    private readonly tests: LabTestsRepository,
    private readonly accounts: LabAccountsService,
    private readonly labMarkers: LabMarkersService,
  ) {}

  /**
   * The lab test an order may use: visible to the team (global or its own), with its lab,
   * markers and the biomarkers it reports. Throws 404 when the team cannot see it, and 422 at
   * `loc` (default `['body', 'lab_test_id']`) when it is inactive.
   */
  async findOrderable(team: TeamPrincipal, labTestId: string, loc: Loc = ['body', 'lab_test_id']): Promise<OrderableLabTest> {
    const labTest = await this.tests.findVisible(team, labTestId);
    if (!labTest) throw notFound('Lab test');
    if (!labTest.isActive || labTest.status !== 'active') {
      throw validationError(loc, `Lab test ${labTestId} is ${labTest.isActive ? labTest.status : 'inactive'} and cannot be ordered.`, labTestId);
    }
    const [lab] = await this.catalog.labsByIds([labTest.labId]);
    const markerIds = (await this.tests.markerIdsOf([labTest.id])).get(labTest.id) ?? [];
    const graph = await this.labMarkers.graph(await this.catalog.markersByIds(markerIds));
    const markers = markerIds.map((id) => graph.marker(id)).filter((marker): marker is MarkerEntity => marker !== undefined);
    return { labTest, lab, markers, biomarkers: graph.expand(markers), view: toLabTestView(labTest, lab, markers) };
  }

  /**
   * Order creation rule 1: every marker must be one of lab `labId`'s. Returns the markers (in
   * the given order, each once); otherwise 422 at `loc` listing the markers that are unknown or
   * belong to another lab.
   */
  async checkMarkersBelongToLab(markerIds: number[], labId: number, loc: Loc = ['body', 'marker_ids']): Promise<MarkerEntity[]> {
    const ids = unique(markerIds);
    const byId = new Map((await this.catalog.markersByIds(ids)).map((marker) => [marker.id, marker]));
    const foreign = ids.filter((id) => byId.get(id)?.labId !== labId);
    if (foreign.length > 0) {
      const [lab] = await this.catalog.labsByIds([labId]);
      throw validationError(loc, `Markers ${foreign.join(', ')} are not markers of lab ${lab?.slug ?? labId}.`, markerIds, 'value_error', {
        foreign_marker_ids: foreign,
        lab_id: labId,
      });
    }
    return ids.map((id) => byId.get(id) as MarkerEntity);
  }

  /**
   * An order set (`lab_test_ids`, `add_on.marker_ids`/`provider_ids`, `lab_account_id`) resolved
   * to one lab: every lab test visible and active, every marker known and orderable, all at the
   * same lab, and at the lab account's lab when one is given. 422 at `loc` + field otherwise.
   */
  async resolveOrderSet(team: TeamPrincipal, orderSet: OrderSetInput, loc: Loc = ['body']): Promise<ResolvedOrderSet> {
    const testIds = unique(orderSet.lab_test_ids ?? []);
    const addOnIds = unique(orderSet.add_on?.marker_ids ?? []);
    const addOnProviderIds = unique(orderSet.add_on?.provider_ids ?? []);
    if (testIds.length + addOnIds.length + addOnProviderIds.length === 0) {
      throw validationError(loc, 'An order set needs at least one lab test id, marker id or provider id.', orderSet);
    }
    const issues: ValidationIssue[] = [];
    const labTests: LabTestEntity[] = [];
    for (const [index, id] of testIds.entries()) {
      const test = await this.tests.findVisible(team, id);
      if (!test) issues.push({ loc: [...loc, 'lab_test_ids', index], msg: `Lab test ${id} not found.`, type: 'value_error', input: id });
      else if (!test.isActive || test.status !== 'active') {
        issues.push({ loc: [...loc, 'lab_test_ids', index], msg: `Lab test ${id} is inactive.`, type: 'value_error', input: id });
      } else labTests.push(test);
    }
    const account = orderSet.lab_account_id ? await this.accounts.requireVisible(team, orderSet.lab_account_id, [...loc, 'lab_account_id']) : null;
    const testMarkerIds = [...(await this.tests.markerIdsOf(labTests.map((test) => test.id))).values()].flat();
    const addOns = await this.labMarkers.resolveMarkers(addOnIds, addOnProviderIds, [...loc, 'add_on'], issues, account?.labId ?? labTests[0]?.labId);
    if (issues.length > 0) throw new RequestValidationError(issues);

    const labIds = unique([...labTests.map((test) => test.labId), ...addOns.map((marker) => marker.labId)]);
    if (account && labIds.some((id) => id !== account.labId)) {
      const labs = await this.catalog.labsByIds(unique([...labIds, account.labId]));
      const slug = (id: number) => labs.find((lab) => lab.id === id)?.slug ?? String(id);
      throw validationError(
        [...loc, 'lab_account_id'],
        `Lab account ${account.id} is at ${slug(account.labId)}; the order set has lab tests or markers at ${labIds
          .filter((id) => id !== account.labId)
          .map(slug)
          .join(', ')}.`,
        account.id,
      );
    }
    if (labIds.length > 1) {
      const labs = await this.catalog.labsByIds(labIds);
      throw validationError(loc, `All lab tests and markers of an order set must be from one lab; got ${labs.map((lab) => lab.slug).join(', ')}.`, orderSet);
    }
    const [lab] = await this.catalog.labsByIds(labIds);
    const graph = await this.labMarkers.graph(await this.catalog.markersByIds(unique([...testMarkerIds, ...addOns.map((marker) => marker.id)])));
    const markers = unique([...testMarkerIds, ...addOns.map((marker) => marker.id)])
      .map((id) => graph.marker(id))
      .filter((marker): marker is MarkerEntity => marker !== undefined);
    return { lab, labTests, markers, biomarkers: graph.expand(markers) };
  }
}
