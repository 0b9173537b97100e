import { Inject, Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { notFound, validationError } from '../common/errors';
import type { BillingType, LabEntity } from '../lab-tests/lab-catalog.entities';
import { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import { LabAccountsRepository } from '../lab-tests/lab-accounts.repository';
import { OrderQueriesService } from '../orders/order-queries.service';
import { PHLEBOTOMY_PROVIDER, PSC_PROVIDER } from './appointment-availability.service';
import type { AreaInfoQuery, LAB_LOCATION_CAPABILITIES, OrderPscInfoQuery, PscInfoQuery } from './appointments.dto';
import { type AppointmentLocation, type AppointmentProvider, PSC_SCHEDULING_LABS } from './providers/appointment-provider';

type Capability = (typeof LAB_LOCATION_CAPABILITIES)[number];

/** Junction's ClientFacingLabLocation. */
export interface LabLocationView {
  metadata: { name: string; state: string; city: string; zip_code: string; first_line: string; second_line?: string };
  distance: number;
  site_code: string;
  supported_bill_types: BillingType[];
  location: { lng: number; lat: number };
  capabilities: Capability[];
}

/** Junction's PscInfo. */
export interface PscInfoView {
  lab_id: number;
  slug: string;
  patient_service_centers: LabLocationView[];
}

/** Junction's AreaInfo. */
export interface AreaInfoView {
  zip_code: string;
  phlebotomy: { is_served: boolean; providers: Array<{ name: string; service_types: Array<'appointment-ready' | 'appointment-request'> }> };
  central_labs: Record<
    string,
    {
      patient_service_centers: { appointment_with_vital: boolean; within_radius: number; radius: string; capabilities: Capability[] };
      supported_bill_types: BillingType[];
      lab_id: number;
    }
  >;
}

/**
 * Where a patient can be served, before anything is booked: at-home phlebotomy in a zip code, and
 * each lab's patient service centers around it (`GET /v3/order/area/info`, `/v3/order/psc/info`,
 * `/v3/order/{id}/psc/info`). The providers say where they work (AppointmentProvider.serviceArea);
 * the bill types are those of the lab accounts the team can use at the lab.
 */
@Injectable()
export class AppointmentAreasService {
  constructor(
    @Inject(PHLEBOTOMY_PROVIDER) private readonly phlebotomy: AppointmentProvider,
    @Inject(PSC_PROVIDER) private readonly psc: AppointmentProvider,
    private readonly catalog: LabCatalogRepository,
    private readonly labAccounts: LabAccountsRepository,
    private readonly orders: OrderQueriesService,
  ) {}

  async areaInfo(team: TeamPrincipal, query: AreaInfoQuery): Promise<AreaInfoView> {
    const radius = Number(query.radius);
    const account = query.lab_account_id ? await this.visibleAccount(team, query.lab_account_id) : null;
    const labs = await this.labsAsked(query, account?.labId ?? null);
    const phlebotomy = await this.phlebotomy.serviceArea({ zip: query.zip_code, radius, lab: '' });
    const billTypes = await this.billTypesByLab(team, query.lab_account_id);
    const central_labs: AreaInfoView['central_labs'] = {};
    for (const lab of labs) {
      const { sites } = await this.psc.serviceArea({ zip: query.zip_code, radius, lab: lab.slug });
      central_labs[lab.slug] = {
        patient_service_centers: {
          appointment_with_vital: schedulesThrough(lab.slug),
          within_radius: sites.length,
          radius: query.radius,
          capabilities: capabilitiesOf(lab.slug),
        },
        supported_bill_types: billTypes.get(lab.id) ?? [],
        lab_id: lab.id,
      };
    }
    return {
      zip_code: query.zip_code,
      phlebotomy: {
        is_served: phlebotomy.drawsAtHome,
        providers: phlebotomy.drawsAtHome ? [{ name: this.phlebotomy.publicName, service_types: ['appointment-ready', 'appointment-request'] }] : [],
      },
      central_labs,
    };
  }

  async pscInfo(team: TeamPrincipal, query: PscInfoQuery): Promise<PscInfoView> {
    const [lab] = await this.catalog.labsByIds([query.lab_id]);
    if (!lab) throw validationError(['query', 'lab_id'], `Lab ${query.lab_id} not found.`, query.lab_id);
    if (query.lab_account_id) {
      const account = await this.visibleAccount(team, query.lab_account_id);
      if (account.labId !== lab.id)
        throw validationError(['query', 'lab_account_id'], `Lab account ${account.id} is not an account at ${lab.slug}.`, query.lab_account_id);
    }
    return this.centersOf(team, lab, query.zip_code, query.radius, query.capabilities ?? [], query.lab_account_id);
  }

  /** The service centers of the order's lab around its patient's address. */
  async orderPscInfo(team: TeamPrincipal, orderId: string, query: OrderPscInfoQuery): Promise<PscInfoView> {
    const order = await this.orders.get(team, orderId);
    const zip = (order.patient_address as { zip?: string } | null)?.zip;
    if (!zip) throw notFound("Patient address (the order's kit is not registered)");
    const [lab] = await this.catalog.labsByIds([order.lab_test.lab.id]);
    return this.centersOf(team, lab, zip, query.radius, query.capabilities ?? [], order.lab_account_id);
  }

  private async centersOf(
    team: TeamPrincipal,
    lab: LabEntity,
    zip: string,
    radius: string,
    wanted: Capability[],
    labAccountId: string | undefined,
  ): Promise<PscInfoView> {
    const { sites } = await this.psc.serviceArea({ zip, radius: Number(radius), lab: lab.slug });
    const billTypes = (await this.billTypesByLab(team, labAccountId)).get(lab.id) ?? [];
    const capabilities = capabilitiesOf(lab.slug);
    const offered = wanted.every((capability) => capabilities.includes(capability));
    return { lab_id: lab.id, slug: lab.slug, patient_service_centers: offered ? sites.map((site) => toLabLocation(site, billTypes, capabilities)) : [] };
  }

  /** The labs area info reports on: those asked for (each must exist), else every lab with service centers. */
  private async labsAsked(query: AreaInfoQuery, accountLab: number | null): Promise<LabEntity[]> {
    const all = await this.catalog.allLabs();
    const asked = [...(query.lab ? [query.lab] : []), ...(query.labs ?? [])];
    for (const slug of asked) {
      if (!all.some((lab) => lab.slug === slug)) throw validationError(['query', query.labs?.includes(slug) ? 'labs' : 'lab'], `Unknown lab ${slug}.`, slug);
    }
    return all.filter(
      (lab) => (asked.length > 0 ? asked.includes(lab.slug) : lab.collectionMethods.includes('walk_in_test')) && (accountLab === null || lab.id === accountLab),
    );
  }

  private async visibleAccount(team: TeamPrincipal, id: string) {
    const account = await this.labAccounts.findVisible(team, id);
    if (!account) throw validationError(['query', 'lab_account_id'], `Lab account ${id} not found.`, id);
    return account;
  }

  /** Per lab, the bill types of the team's usable (active) accounts there, or of the one account named; one read. */
  private async billTypesByLab(team: TeamPrincipal, labAccountId: string | undefined): Promise<Map<number, BillingType[]>> {
    const accounts = await this.labAccounts.listVisible(team, { status: 'active', ...(labAccountId ? { id: labAccountId } : {}) });
    const byLab = new Map<number, Set<BillingType>>();
    for (const account of accounts) {
      const types = byLab.get(account.labId) ?? new Set<BillingType>();
      for (const type of account.allowedBilling) types.add(type);
      byLab.set(account.labId, types);
    }
    return new Map([...byLab].map(([labId, types]) => [labId, [...types].sort()]));
  }
}

function schedulesThrough(labSlug: string): boolean {
  return (PSC_SCHEDULING_LABS as readonly string[]).includes(labSlug);
}

/** labflow books Quest's service centers itself; other labs' patients book with the lab or walk in. */
function capabilitiesOf(labSlug: string): Capability[] {
  return [schedulesThrough(labSlug) ? 'appointment_scheduling_via_junction' : 'appointment_scheduling_with_lab'];
}

function toLabLocation(site: AppointmentLocation, billTypes: BillingType[], capabilities: Capability[]): LabLocationView {
  return {
    metadata: {
      name: site.name,
      state: site.address.state,
      city: site.address.city,
      zip_code: site.address.zip_code,
      first_line: site.address.first_line,
      ...(site.address.second_line ? { second_line: site.address.second_line } : {}),
    },
    distance: site.distance ?? 0,
    site_code: site.code,
    supported_bill_types: billTypes,
    location: site.location,
    capabilities,
  };
}
