import { Inject, Injectable } from '@nestjs/common';
import { SANDBOX_CALLBACKS, type SandboxCallbacks } from '../../adapters/sandbox-callbacks';
import { LABFLOW_CONFIG, type LabflowConfig } from '../../config/config';
import type {
  AppointmentProvider,
  AreaQuery,
  AvailabilityQuery,
  ProviderAvailability,
  ProviderBooking,
  ProviderBookingRequest,
  ProviderSlotRef,
  ServiceArea,
} from './appointment-provider';
import { phlebotomyCoverage, zipArea, zipCentroid } from './sandbox-data';
import { SandboxBookingProvider, sandboxProviderId } from './sandbox-booking';
import { sandboxDays } from './sandbox-slots';

/** Booking checks seats against capacity(); availability's grid reports the same number. */
const PHLEBOTOMISTS_PER_SLOT = 1;

/**
 * Sandbox at-home phlebotomy (stands in for getlabs): coverage by zip (85004 America/Phoenix,
 * 54650 America/Chicago), slots 07:00–12:00 local every 30 minutes, closed on Sundays; the 07:00
 * slot is a priority slot. One phlebotomist per slot, so a slot takes one appointment. Bookings
 * are confirmed at once; a requested appointment is confirmed later with the time the provider
 * picked (the next morning at 08:00 local).
 */
@Injectable()
export class SandboxPhlebotomyProvider extends SandboxBookingProvider implements AppointmentProvider {
  readonly kind = 'phlebotomy' as const;
  readonly publicName = 'getlabs';
  /** How many times availability was computed (tests check cache hits with it). */
  calls = 0;

  constructor(@Inject(SANDBOX_CALLBACKS) callbacks: SandboxCallbacks, @Inject(LABFLOW_CONFIG) config: LabflowConfig) {
    super('sandbox_phlebotomy', callbacks, config);
  }

  /** Draws at home in the covered zips; no service centers. */
  serviceArea(query: AreaQuery): Promise<ServiceArea> {
    return Promise.resolve({ drawsAtHome: phlebotomyCoverage(query.zip) !== undefined, sites: [] });
  }

  /** One phlebotomist per slot. */
  capacity(): number {
    return PHLEBOTOMISTS_PER_SLOT;
  }

  async book(request: ProviderBookingRequest): Promise<ProviderBooking> {
    const address = request.address;
    if (!address) throw new Error('At-home phlebotomy needs the patient address.');
    const timezone = phlebotomyCoverage(address.zip_code);
    if (!timezone) throw new NoCoverageError(`No at-home phlebotomy coverage for zip code ${address.zip_code}.`);
    // Every covered zip is among the centroids (sandbox-data.ts).
    const centroid = zipCentroid(address.zip_code)!;
    const providerId = sandboxProviderId('GL', request.appointmentId);
    const status = request.slot && !request.asyncConfirmation ? 'confirmed' : 'pending';
    const slot = request.slot ?? this.providerPickedSlot(zipArea(address.zip_code), timezone);
    await this.reports.afterBooking({ ...request, providerId, status, slot });
    return { providerId, status, address, location: { lng: centroid.lng, lat: centroid.lat }, timezone, site: zipArea(address.zip_code) };
  }

  /** Provider-managed scheduling: 08:00–08:30 local on the next day. */
  private providerPickedSlot(area: string, timezone: string): ProviderSlotRef {
    const [day] = sandboxDays(
      {
        timezone,
        open: [8, 0],
        close: [8, 30],
        everyMinutes: 30,
        durationMinutes: 30,
        closedOn: [],
        slot: () => ({ price: 0, is_priority: false, num_appointments_available: PHLEBOTOMISTS_PER_SLOT }),
      },
      new Date(Date.now() + 24 * 3600_000).toISOString().slice(0, 10),
      1,
      0,
    );
    const [slot] = day.slots;
    return { site: area, start: slot.start, end: slot.end };
  }

  availability(query: AvailabilityQuery): Promise<ProviderAvailability | null> {
    if (query.kind !== 'phlebotomy') return Promise.resolve(null);
    this.calls += 1;
    const timezone = phlebotomyCoverage(query.address.zip_code);
    if (!timezone) return Promise.resolve(null);
    const days = sandboxDays(
      {
        timezone,
        open: [7, 0],
        close: [12, 0],
        everyMinutes: 30,
        durationMinutes: 30,
        closedOn: [0],
        slot: (minutes) => ({
          price: minutes === 7 * 60 ? 25 : 0,
          is_priority: minutes === 7 * 60,
          num_appointments_available: PHLEBOTOMISTS_PER_SLOT,
        }),
      },
      query.startDate,
      query.days,
      query.nowMs,
    );
    return Promise.resolve({ provider: this.slug, timezone, area: zipArea(query.address.zip_code), days });
  }
}

/** The address is outside the provider's coverage. */
export class NoCoverageError extends Error {}
