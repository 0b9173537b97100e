import { Injectable } from '@nestjs/common';
import type { AppointmentLocation, AppointmentProvider, AvailabilityQuery, ProviderAvailability, ProviderDay } from './appointment-provider';
import { milesBetween, PSC_SITES, ZIP_CENTROIDS } from './sandbox-data';
import { sandboxDays } from './sandbox-slots';

/**
 * Sandbox Quest patient service centers: a few sites in America/New_York, slots every 20 minutes
 * 07:00–15:00 local, closed on Sundays. Sites are chosen by `site_codes` and/or within `radius`
 * miles of the zip's centroid (nearest first).
 */
@Injectable()
export class SandboxPscProvider implements AppointmentProvider {
  readonly kind = 'psc' as const;
  readonly slug = 'sandbox_psc';
  /** How many times availability was computed (tests check cache hits with it). */
  calls = 0;

  availability(query: AvailabilityQuery): Promise<ProviderAvailability | null> {
    if (query.kind !== 'psc') return Promise.resolve(null);
    this.calls += 1;
    let sites = PSC_SITES.map((site) => ({ site, distance: undefined as number | undefined }));
    if (query.siteCodes?.length) {
      const wanted = new Set(query.siteCodes);
      sites = sites.filter(({ site }) => wanted.has(site.code));
    }
    if (query.zip !== undefined) {
      const centroid = ZIP_CENTROIDS[query.zip];
      if (!centroid) return Promise.resolve(null);
      sites = sites
        .map(({ site }) => ({ site, distance: Math.round(milesBetween(centroid, site) * 100) / 100 }))
        .filter(({ distance }) => distance <= query.radius)
        .sort((a, b) => a.distance - b.distance);
    }
    if (sites.length === 0) return Promise.resolve(null);
    const days: ProviderDay[] = [];
    for (const { site, distance } of sites) {
      const location: AppointmentLocation = {
        location: { lng: site.lng, lat: site.lat },
        ...(distance !== undefined ? { distance } : {}),
        address: site.address,
        code: site.code,
        name: site.name,
        iana_timezone: site.timezone,
      };
      const grid = sandboxDays(
        {
          timezone: site.timezone,
          open: [7, 0],
          close: [15, 0],
          everyMinutes: 20,
          durationMinutes: 20,
          closedOn: [0],
          slot: () => ({ price: 0, is_priority: false, num_appointments_available: 3 }),
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
