import { Inject, Injectable } from '@nestjs/common';
import { SANDBOX_CALLBACKS, type SandboxCallbacks } from '../../adapters/sandbox-callbacks';
import { LABFLOW_CONFIG, type LabflowConfig } from '../../config/config';
import type {
  AppointmentLocation,
  AppointmentProvider,
  AreaQuery,
  AvailabilityQuery,
  ProviderAvailability,
  ProviderBooking,
  ProviderBookingRequest,
  ProviderDay,
  ServiceArea,
} from './appointment-provider';
import { SandboxBookingProvider, sandboxProviderId } from './sandbox-booking';
import { milesBetween, PSC_SITES, type PscSite, zipCentroid } from './sandbox-data';
import { sandboxDays } from './sandbox-slots';

/** Seats per slot at a sandbox service center. */
const PSC_SEATS = 3;

/**
 * Sandbox Quest patient service centers: a few sites in America/New_York, slots every 20 minutes
 * 07:00–15:00 local, closed on Sundays, three seats per slot. Sites are chosen by `site_codes`
 * and/or within `radius` miles of the zip's centroid (nearest first). A booking is confirmed at
 * once, or with async confirmation `pending` until the provider's confirmation callback.
 */
@Injectable()
export class SandboxPscProvider extends SandboxBookingProvider implements AppointmentProvider {
  readonly kind = 'psc' as const;
  readonly publicName = 'quest';
  /** How many times availability was computed (tests check cache hits with it). */
  calls = 0;

  constructor(@Inject(SANDBOX_CALLBACKS) callbacks: SandboxCallbacks, @Inject(LABFLOW_CONFIG) config: LabflowConfig) {
    super('sandbox_psc', callbacks, config);
  }

  capacity(): number {
    return PSC_SEATS;
  }

  /** Quest's sandbox sites within the radius of the zip's centroid, nearest first; no other lab's. */
  serviceArea(query: AreaQuery): Promise<ServiceArea> {
    const centroid = zipCentroid(query.zip);
    if (query.lab !== this.publicName || !centroid) return Promise.resolve({ drawsAtHome: false, sites: [] });
    const sites = within(PSC_SITES, centroid, query.radius).map(({ site, distance }) => siteLocation(site, distance));
    return Promise.resolve({ drawsAtHome: false, sites });
  }

  async book(request: ProviderBookingRequest): Promise<ProviderBooking> {
    const slot = request.slot;
    const site = slot ? PSC_SITES.find((candidate) => candidate.code === slot.site) : undefined;
    if (!slot || !site) throw new Error(`Unknown patient service center ${slot?.site ?? '(none)'}.`);
    const providerId = sandboxProviderId('QPSC', request.appointmentId);
    const status = request.asyncConfirmation ? 'pending' : 'confirmed';
    await this.reports.afterBooking({ ...request, providerId, status, slot });
    return { providerId, status, address: site.address, location: { lng: site.lng, lat: site.lat }, timezone: site.timezone, site: site.code };
  }

  availability(query: AvailabilityQuery): Promise<ProviderAvailability | null> {
    if (query.kind !== 'psc') return Promise.resolve(null);
    this.calls += 1;
    const wanted = query.siteCodes?.length ? new Set(query.siteCodes) : null;
    const chosen = wanted ? PSC_SITES.filter((site) => wanted.has(site.code)) : PSC_SITES;
    let sites: Array<{ site: PscSite; distance?: number }> = chosen.map((site) => ({ site }));
    if (query.zip !== undefined) {
      const centroid = zipCentroid(query.zip);
      if (!centroid) return Promise.resolve(null);
      sites = within(chosen, centroid, query.radius);
    }
    if (sites.length === 0) return Promise.resolve(null);
    const days: ProviderDay[] = [];
    for (const { site, distance } of sites) {
      const location = siteLocation(site, distance);
      const grid = sandboxDays(
        {
          timezone: site.timezone,
          open: [7, 0],
          close: [15, 0],
          everyMinutes: 20,
          durationMinutes: 20,
          closedOn: [0],
          slot: () => ({ price: 0, is_priority: false, num_appointments_available: PSC_SEATS }),
        },
        query.startDate,
        query.days,
        query.nowMs,
      );
      for (const day of grid) days.push({ ...day, location });
    }
    return Promise.resolve({ provider: this.slug, timezone: sites[0].site.timezone, days });
  }
}

/** A sandbox site as Junction's AppointmentLocation (`distance` in miles, when a zip was given). */
function siteLocation(site: PscSite, distance: number | undefined): AppointmentLocation {
  return {
    location: { lng: site.lng, lat: site.lat },
    ...(distance !== undefined ? { distance } : {}),
    address: site.address,
    code: site.code,
    name: site.name,
    iana_timezone: site.timezone,
  };
}

/** The sites within `radius` miles of `centroid`, nearest first, with their distance (miles, to the hundredth). */
function within(sites: readonly PscSite[], centroid: { lat: number; lng: number }, radius: number): Array<{ site: PscSite; distance: number }> {
  return sites
    .map((site) => ({ site, distance: Math.round(milesBetween(centroid, site) * 100) / 100 }))
    .filter(({ distance }) => distance <= radius)
    .sort((a, b) => a.distance - b.distance);
}
