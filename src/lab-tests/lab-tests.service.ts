import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { TeamPrincipal } from '../auth/principal';
import { forbidden, notFound, RequestValidationError, validationError, type ValidationIssue } from '../common/errors';
import { eitherSpelling } from '../common/schemas';
import type { CollectionMethod, LabEntity, LabTestStatus, MarkerEntity, SampleType } from './lab-catalog.entities';
import { LabTestEntity } from './lab-catalog.entities';
import { LabCatalogRepository } from './lab-catalog.repository';
import { type LabTestFilters, LabTestsRepository } from './lab-tests.repository';
import { toLabTestView, toLabView, toMarkerView } from './lab-catalog.views';
import { renderCollectionInstructionsPdf } from './collection-instructions';
import { LabAccountsService } from './lab-accounts.service';
import { LabMarkersService, unique } from './lab-markers.service';
import type { LabTestView, LabView, MarkerCompleteView, MarkersPageView, MarkerView, OrderSetInput } from './lab-tests.dto';
import { OrderableLabTestsService } from './orderable-lab-tests.service';

export interface ListLabTestsInput {
  generation_method: 'auto' | 'manual' | 'all';
  lab_slug?: string;
  collection_method?: CollectionMethod;
  status?: LabTestStatus;
  marker_ids?: number[];
  provider_ids?: string[];
  name?: string;
  order_key?: 'price' | 'created_at' | 'updated_at';
  order_direction: 'asc' | 'desc';
}

export interface CreateLabTestInput {
  name: string;
  method: CollectionMethod;
  description: string;
  marker_ids?: number[];
  provider_ids?: string[];
  fasting?: boolean;
}

const slugify = (value: string) =>
  value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

function pageOf<T>(items: T[], page: number, size: number) {
  return items.slice((page - 1) * size, page * size);
}

function markersPage(markers: MarkerCompleteView[], total: number, page: number, size: number): MarkersPageView {
  return { markers, total, page, size, pages: Math.ceil(total / size) };
}

/** The lab catalog over HTTP: labs, markers and lab tests. Orders go through OrderableLabTestsService. */
@Injectable()
export class LabTestsService {
  constructor(
    private readonly catalog: LabCatalogRepository,
    private readonly tests: LabTestsRepository,
    private readonly accounts: LabAccountsService,
    private readonly labMarkers: LabMarkersService,
    private readonly orderable: OrderableLabTestsService,
  ) {}

  async labs(): Promise<LabView[]> {
    return (await this.catalog.allLabs()).map(toLabView);
  }

  async markers(
    team: TeamPrincipal,
    query: {
      lab_id?: number[];
      'lab_id[]'?: number[];
      lab_slug?: string;
      name?: string;
      a_la_carte_enabled?: boolean;
      lab_account_id?: string;
      page: number;
      size: number;
    },
  ): Promise<MarkersPageView> {
    const requestedLabIds = eitherSpelling(query.lab_id, query['lab_id[]']);
    let labIds = requestedLabIds ? unique(requestedLabIds) : undefined;
    const narrow = (ids: number[]) => (labIds = labIds === undefined ? ids : labIds.filter((id) => ids.includes(id)));
    if (query.lab_slug !== undefined) {
      const lab = await this.catalog.labBySlug(query.lab_slug);
      narrow(lab ? [lab.id] : []);
    }
    if (query.lab_account_id) {
      const account = await this.accounts.requireVisible(team, query.lab_account_id, ['query', 'lab_account_id']);
      narrow([account.labId]);
    }
    if (labIds?.length === 0) return markersPage([], 0, query.page, query.size);
    const { markers, total } = await this.catalog.searchMarkers(
      { labIds, name: query.name, aLaCarteEnabled: query.a_la_carte_enabled },
      (query.page - 1) * query.size,
      query.size,
    );
    const graph = await this.labMarkers.graph(markers);
    return markersPage(
      markers.map((marker) => graph.completeView(marker)),
      total,
      query.page,
      query.size,
    );
  }

  async markerByProviderId(team: TeamPrincipal, labId: number, providerId: string, labAccountId?: string): Promise<MarkerView> {
    await this.requireAvailableWith(team, labAccountId, labId, 'Marker');
    const marker = await this.catalog.markerByLabAndProviderId(labId, providerId);
    if (!marker) throw notFound('Marker');
    return toMarkerView(marker);
  }

  async list(team: TeamPrincipal, query: ListLabTestsInput): Promise<LabTestView[]> {
    const filters = await this.filters(query);
    return filters ? this.views(await this.tests.listVisible(team, filters)) : [];
  }

  /** `GET /v3/lab_test`: the same list, a page at a time with an opaque cursor. */
  async listPage(
    team: TeamPrincipal,
    query: ListLabTestsInput & { lab_test_limit: number; next_cursor?: string },
  ): Promise<{ data: LabTestView[]; next_cursor: string | null }> {
    const offset = query.next_cursor ? decodeCursor(query.next_cursor) : 0;
    const filters = await this.filters(query);
    if (!filters) return { data: [], next_cursor: null };
    const rows = await this.tests.listVisible(team, filters, { offset, limit: query.lab_test_limit + 1 });
    const more = rows.length > query.lab_test_limit;
    return {
      data: await this.views(rows.slice(0, query.lab_test_limit)),
      next_cursor: more ? encodeCursor(offset + query.lab_test_limit) : null,
    };
  }

  async get(team: TeamPrincipal, labTestId: string, labAccountId?: string): Promise<LabTestView> {
    const test = await this.requireVisible(team, labTestId);
    await this.requireAvailableWith(team, labAccountId, test.labId, 'Lab test');
    const [view] = await this.views([test]);
    return view;
  }

  async markersOfTest(team: TeamPrincipal, labTestId: string, query: { lab_account_id?: string; page: number; size: number }): Promise<MarkersPageView> {
    const test = await this.requireVisible(team, labTestId);
    await this.requireAvailableWith(team, query.lab_account_id, test.labId, 'Lab test');
    const markerIds = (await this.tests.markerIdsOf([test.id])).get(test.id) ?? [];
    const pageIds = pageOf(markerIds, query.page, query.size);
    const graph = await this.labMarkers.graph(await this.catalog.markersByIds(pageIds));
    const markers = pageIds.map((id) => graph.marker(id)).filter((marker): marker is MarkerEntity => marker !== undefined);
    return markersPage(
      markers.map((marker) => graph.completeView(marker)),
      markerIds.length,
      query.page,
      query.size,
    );
  }

  /** `POST /v3/lab_tests/list_order_set_markers`: the markers an order set would order. */
  async orderSetMarkers(team: TeamPrincipal, orderSet: OrderSetInput, page: number, size: number): Promise<MarkersPageView> {
    const { markers } = await this.orderable.resolveOrderSet(team, orderSet);
    const pageMarkers = pageOf(markers, page, size);
    const graph = await this.labMarkers.graph(pageMarkers);
    return markersPage(
      pageMarkers.map((marker) => graph.completeView(marker)),
      markers.length,
      page,
      size,
    );
  }

  /**
   * A team-owned lab test from markers (by id and/or provider id) that must all be orderable
   * markers of one lab, which becomes the test's lab and must offer the collection method.
   */
  async create(team: TeamPrincipal, body: CreateLabTestInput): Promise<LabTestView> {
    const markers = await this.markersForNewTest(body);
    const [lab] = await this.catalog.labsByIds([markers[0].labId]);
    if (!lab.collectionMethods.includes(body.method)) {
      throw validationError(['body', 'method'], `Lab ${lab.slug} does not offer ${body.method}; it offers ${lab.collectionMethods.join(', ')}.`, body.method);
    }
    const tat = (pick: (marker: MarkerEntity) => number | null) => {
      const days = markers.map(pick).filter((value): value is number => value !== null);
      return days.length > 0 ? Math.max(...days) : null;
    };
    const test = Object.assign(new LabTestEntity(), {
      id: randomUUID(),
      teamId: team.teamId,
      environment: team.environment,
      labId: lab.id,
      slug: slugify(body.name) || 'lab-test',
      name: body.name,
      description: body.description,
      sampleType: sampleTypeFor(lab, body.method),
      method: body.method,
      price: Math.round(markers.reduce((sum, marker) => sum + marker.price, 0) * 100) / 100,
      isActive: true,
      // Self-hosted: no approval step, a new test is orderable at once.
      status: 'active' as const,
      fasting: body.fasting ?? false,
      isDelegated: false,
      autoGenerated: false,
      // Every collection method has its instructions (collection-instructions.ts).
      hasCollectionInstructions: true,
      commonTatDays: tat((marker) => marker.commonTatDays),
      worstCaseTatDays: tat((marker) => marker.worstCaseTatDays),
    });
    const saved = await this.tests.insert(
      test,
      markers.map((marker) => marker.id),
    );
    const [view] = await this.views([saved]);
    return view;
  }

  /** Renames a team's own test and/or (de)activates it. Global tests cannot be changed. */
  async update(team: TeamPrincipal, labTestId: string, body: { name?: string; active?: boolean }): Promise<LabTestView> {
    const test = await this.requireVisible(team, labTestId);
    if (test.teamId === null) throw forbidden('Lab test is part of the global catalog and cannot be changed.');
    if (body.name !== undefined) {
      test.name = body.name;
      test.slug = slugify(body.name) || 'lab-test';
    }
    if (body.active !== undefined) {
      test.isActive = body.active;
      if (test.status !== 'pending_approval') test.status = body.active ? 'active' : 'inactive';
    }
    const [view] = await this.views([await this.tests.save(test)]);
    return view;
  }

  // -------------------------------------------------------------------------------------------

  /**
   * With `lab_account_id`, only the account's lab's tests and markers are available (as in the
   * markers list): one of another lab is not found, and an account the team cannot see is a 422.
   */
  /**
   * Collection instructions for the lab test (`GET /v3/lab_test/{id}/collection_instruction_pdf`),
   * or for one order of it (`order`: its id, sample id, method and creation time).
   */
  async collectionInstructionsPdf(
    team: TeamPrincipal,
    labTestId: string,
    order: { id: string; sampleId: string | null; method: CollectionMethod; createdAt: Date } | null = null,
  ): Promise<Buffer> {
    const test = await this.requireVisible(team, labTestId);
    const [lab] = await this.catalog.labsByIds([test.labId]);
    return renderCollectionInstructionsPdf({
      testName: test.name,
      labName: lab?.name ?? String(test.labId),
      method: order?.method ?? test.method,
      fasting: test.fasting,
      order: order ? { id: order.id, sampleId: order.sampleId } : null,
      date: order?.createdAt ?? test.updatedAt,
    });
  }

  private async requireAvailableWith(team: TeamPrincipal, labAccountId: string | undefined, labId: number, what: 'Lab test' | 'Marker'): Promise<void> {
    if (!labAccountId) return;
    const account = await this.accounts.requireVisible(team, labAccountId, ['query', 'lab_account_id']);
    if (account.labId !== labId) throw notFound(`${what} at the lab of lab account ${labAccountId}`);
  }

  private async requireVisible(team: TeamPrincipal, labTestId: string): Promise<LabTestEntity> {
    const test = await this.tests.findVisible(team, labTestId);
    if (!test) throw notFound('Lab test');
    return test;
  }

  /** Repository filters, or null when the filters can match nothing (unknown lab slug). */
  private async filters(query: ListLabTestsInput): Promise<LabTestFilters | null> {
    let labId: number | undefined;
    if (query.lab_slug !== undefined) {
      const lab = await this.catalog.labBySlug(query.lab_slug);
      if (!lab) return null;
      labId = lab.id;
    }
    return {
      autoGenerated: query.generation_method === 'all' ? undefined : query.generation_method === 'auto',
      labId,
      method: query.collection_method,
      status: query.status,
      markerIds: query.marker_ids,
      providerIds: query.provider_ids,
      name: query.name,
      orderKey: query.order_key ?? 'created_at',
      orderDirection: query.order_direction,
    };
  }

  private async views(tests: LabTestEntity[]): Promise<LabTestView[]> {
    const markerIds = await this.tests.markerIdsOf(tests.map((test) => test.id));
    const markers = new Map((await this.catalog.markersByIds(unique([...markerIds.values()].flat()))).map((marker) => [marker.id, marker]));
    const labs = new Map((await this.catalog.labsByIds(unique(tests.map((test) => test.labId)))).map((lab) => [lab.id, lab]));
    return tests.map((test) =>
      toLabTestView(
        test,
        labs.get(test.labId) as LabEntity,
        (markerIds.get(test.id) ?? []).map((id) => markers.get(id)).filter((marker): marker is MarkerEntity => marker !== undefined),
      ),
    );
  }

  /** The markers of a new lab test: all known, orderable, of one lab. 422 otherwise. */
  private async markersForNewTest(body: CreateLabTestInput): Promise<MarkerEntity[]> {
    const markerIds = body.marker_ids ?? [];
    const providerIds = body.provider_ids ?? [];
    if (markerIds.length + providerIds.length === 0) {
      throw validationError(['body', 'marker_ids'], 'Give at least one marker in marker_ids or provider_ids.', body.marker_ids ?? null);
    }
    const issues: ValidationIssue[] = [];
    const markers = await this.labMarkers.resolveMarkers(markerIds, providerIds, ['body'], issues);
    if (issues.length > 0) throw new RequestValidationError(issues);
    const labIds = unique(markers.map((marker) => marker.labId));
    if (labIds.length > 1) {
      const labs = new Map((await this.catalog.labsByIds(labIds)).map((lab) => [lab.id, lab.slug]));
      const described = labIds.map(
        (id) =>
          `${labs.get(id)} (${markers
            .filter((marker) => marker.labId === id)
            .map((marker) => marker.id)
            .join(', ')})`,
      );
      throw validationError(
        ['body', 'marker_ids'],
        `All markers of a lab test must be from one lab; got markers from ${described.join(' and ')}.`,
        body.marker_ids ?? body.provider_ids,
        'value_error',
        { lab_ids: labIds },
      );
    }
    return markers;
  }
}

function sampleTypeFor(lab: LabEntity, method: CollectionMethod): SampleType {
  const preferred: SampleType = method === 'testkit' ? 'dried_blood_spot' : 'serum';
  return lab.sampleTypes.includes(preferred) ? preferred : (lab.sampleTypes[0] ?? preferred);
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeCursor(cursor: string): number {
  try {
    const { o } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown };
    if (typeof o === 'number' && Number.isSafeInteger(o) && o >= 0) return o;
  } catch {
    // fall through
  }
  throw validationError(['query', 'next_cursor'], 'Invalid cursor.', cursor);
}
