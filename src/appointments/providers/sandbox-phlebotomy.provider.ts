import { Injectable } from '@nestjs/common';
import type { AppointmentProvider, AvailabilityQuery, ProviderAvailability } from './appointment-provider';
import { PHLEBOTOMY_COVERAGE } from './sandbox-data';
import { sandboxDays } from './sandbox-slots';

/**
 * Sandbox at-home phlebotomy: coverage by zip (85004 America/Phoenix, 54650 America/Chicago),
 * slots 07:00–12:00 local every 30 minutes, closed on Sundays; the 07:00 slot is a priority slot.
 */
@Injectable()
export class SandboxPhlebotomyProvider implements AppointmentProvider {
  readonly kind = 'phlebotomy' as const;
  readonly slug = 'sandbox_phlebotomy';
  /** How many times availability was computed (tests check cache hits with it). */
  calls = 0;

  availability(query: AvailabilityQuery): Promise<ProviderAvailability | null> {
    if (query.kind !== 'phlebotomy') return Promise.resolve(null);
    this.calls += 1;
    const timezone = PHLEBOTOMY_COVERAGE[query.address.zip_code];
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
          num_appointments_available: 2,
        }),
      },
      query.startDate,
      query.days,
      query.nowMs,
    );
    return Promise.resolve({ provider: this.slug, timezone, days });
  }
}
