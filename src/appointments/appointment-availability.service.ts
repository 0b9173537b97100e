import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { ApiError, validationError } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { REDIS } from '../core.tokens';
import { BookingKeys } from './booking-key';
import {
  AVAILABILITY_DAYS,
  type AppointmentLocation,
  type AppointmentProvider,
  type AvailabilityQuery,
  type ProviderAvailability,
  type ProviderSlot,
  type UsAddress,
} from './providers/appointment-provider';
import { AppointmentsRepository } from './appointments.repository';
import { seatsLeft } from './slot-seats';
import { addDays, todayIn } from './zoned-time';

export const PHLEBOTOMY_PROVIDER = Symbol('PHLEBOTOMY_PROVIDER');
export const PSC_PROVIDER = Symbol('PSC_PROVIDER');
/** () => epoch ms; tests may override it. */
export const APPOINTMENTS_CLOCK = Symbol('APPOINTMENTS_CLOCK');

/** How an availability answer was produced (the x-labflow-cache response header). */
export type CacheOutcome = 'off' | 'miss' | 'hit' | 'stale';

export interface AvailabilityResponse {
  slots: Array<{
    location?: AppointmentLocation;
    date: string;
    slots: Array<{
      booking_key: string;
      start: string;
      end: string;
      expires_at: string;
      price: number;
      is_priority: boolean;
      num_appointments_available: number;
    }>;
  }>;
  timezone: string;
}

interface CacheEntry {
  stored_at: number;
  value: ProviderAvailability | null;
}

/**
 * v2: entries carry the phlebotomy coverage `area` that slots are held in. v3: entries are gzipped
 * JSON: a PSC answer is 40-85 KB of JSON and ~2 KB gzipped, and a Redis reply over 32 KB makes
 * ioredis's parser run a 50 ms timer for a second or two (it held up test processes' exit).
 */
const CACHE_PREFIX = 'labflow:appointments:availability:v3';

/**
 * The last few cache entries read or written, parsed, by Redis key. Redis stays the only source:
 * every answer still reads the entry from Redis, and only when its bytes are exactly the ones
 * parsed before is the earlier parse reused (a PSC grid is ~130 kB of JSON; comparing bytes costs
 * a memcmp, parsing them a millisecond and a heap of garbage). The values are shared between
 * answers, so nothing may modify them.
 */
class ParsedCacheEntries {
  private readonly entries = new Map<string, { raw: Buffer; entry: CacheEntry }>();

  constructor(private readonly max: number) {}

  parse(key: string, raw: Buffer): CacheEntry {
    const known = this.entries.get(key);
    const entry = known && known.raw.equals(raw) ? known.entry : (JSON.parse(gunzipSync(raw).toString('utf8')) as CacheEntry);
    this.remember(key, raw, entry);
    return entry;
  }

  remember(key: string, raw: Buffer, entry: CacheEntry): void {
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { raw, entry });
  }
}

/**
 * Appointment availability: the providers' slots for 14 days from a start date (cached in Redis),
 * each signed into an opaque booking_key (bookingKeys), less the seats already held.
 */
@Injectable()
export class AppointmentAvailabilityService {
  readonly bookingKeys: BookingKeys;
  private readonly parsed = new ParsedCacheEntries(32);

  constructor(
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(PHLEBOTOMY_PROVIDER) private readonly phlebotomy: AppointmentProvider,
    @Inject(PSC_PROVIDER) private readonly psc: AppointmentProvider,
    @Inject(APPOINTMENTS_CLOCK) private readonly now: () => number,
    private readonly appointments: AppointmentsRepository,
  ) {
    this.bookingKeys = new BookingKeys(config.phiEncryptionKey, now);
  }

  async phlebotomyAvailability(
    teamId: string,
    address: UsAddress,
    options: { startDate?: string; allowStale?: boolean },
  ): Promise<{ body: AvailabilityResponse; cache: CacheOutcome }> {
    const nowMs = this.now();
    const startDate = this.startDate(options.startDate, nowMs);
    const query: AvailabilityQuery = { kind: 'phlebotomy', address, startDate, days: AVAILABILITY_DAYS, nowMs };
    const { value, cache } = await this.cached(this.phlebotomy, query, options.allowStale ?? false);
    if (!value) throw new ApiError(404, `No at-home phlebotomy coverage for zip code ${address.zip_code}.`);
    return { body: await this.respond(teamId, this.phlebotomy, value, nowMs), cache };
  }

  async pscAvailability(
    teamId: string,
    options: { lab: string; startDate?: string; zipCode?: string; radius: number; siteCodes?: string[]; allowStale?: boolean },
  ): Promise<{ body: AvailabilityResponse; cache: CacheOutcome }> {
    const nowMs = this.now();
    const startDate = this.startDate(options.startDate, nowMs);
    const query: AvailabilityQuery = {
      kind: 'psc',
      lab: options.lab,
      zip: options.zipCode,
      radius: options.radius,
      siteCodes: options.siteCodes?.length ? [...options.siteCodes].sort() : undefined,
      startDate,
      days: AVAILABILITY_DAYS,
      nowMs,
    };
    const { value, cache } = await this.cached(this.psc, query, options.allowStale ?? false);
    if (!value) {
      throw new ApiError(
        404,
        options.zipCode
          ? `No ${options.lab} patient service center within ${options.radius} miles of zip code ${options.zipCode}.`
          : `No ${options.lab} patient service center with the given site codes.`,
      );
    }
    return { body: await this.respond(teamId, this.psc, value, nowMs), cache };
  }

  /** Default: today (UTC). A date before today everywhere on Earth (UTC-12) is refused. */
  private startDate(given: string | undefined, nowMs: number): string {
    if (given === undefined) return todayIn('UTC', nowMs);
    const earliest = todayIn('Etc/GMT+12', nowMs);
    if (given < earliest) throw validationError(['query', 'start_date'], 'start_date must not be in the past.', given);
    if (given > addDays(earliest, 366)) {
      throw validationError(['query', 'start_date'], 'start_date must be within a year from today.', given);
    }
    return given;
  }

  /**
   * Signs every still-bookable slot; days keep their place (empty when nothing is left). The grid
   * (the provider's, or its cached copy) gives each slot's capacity; the seats labflow's
   * appointments hold are read fresh on every answer, cached or not, in one query for the whole
   * window, and subtracted. A slot with no seat left is left out. All keys of one answer expire
   * together (issued when the seats were read); each slot's start is parsed once.
   */
  private async respond(teamId: string, provider: AppointmentProvider, availability: ProviderAvailability, nowMs: number): Promise<AvailabilityResponse> {
    const days = availability.days.map((day) => {
      const site = day.location?.code ?? availability.area ?? '';
      const live: Array<{ site: string; start: number; slot: ProviderSlot }> = [];
      for (const slot of day.slots) {
        const start = Date.parse(slot.start);
        if (start > nowMs) live.push({ site, start, slot });
      }
      return { day, live };
    });
    const held = await this.appointments.heldSeatsNow(
      provider.slug,
      days.flatMap(({ live }) => live),
    );
    const keys = this.bookingKeys.issuer({ kind: provider.kind, provider: availability.provider, team_id: teamId });
    const { expires_at } = keys;
    return {
      timezone: availability.timezone,
      slots: days.map(({ day, live }) => {
        const slots: AvailabilityResponse['slots'][number]['slots'] = [];
        for (const { site, start, slot } of live) {
          const left = seatsLeft(slot.num_appointments_available, held.in(site, start));
          if (left === 0) continue;
          slots.push({
            booking_key: keys.issue(site, slot.start, slot.end),
            start: slot.start,
            end: slot.end,
            expires_at,
            price: slot.price,
            is_priority: slot.is_priority,
            num_appointments_available: left,
          });
        }
        return { ...(day.location ? { location: day.location } : {}), date: day.date, slots };
      }),
    };
  }

  /**
   * The Redis cache in front of a provider: fresh for APPOINTMENT_AVAILABILITY_CACHE_TTL; older
   * copies (kept up to APPOINTMENT_AVAILABILITY_STALE_TTL) only with allow_stale, which also
   * starts a background refresh. Redis trouble never fails the request: it goes to the provider.
   */
  private async cached(
    provider: AppointmentProvider,
    query: AvailabilityQuery,
    allowStale: boolean,
  ): Promise<{ value: ProviderAvailability | null; cache: CacheOutcome }> {
    const ttl = this.config.appointments.availabilityCacheTtlMs;
    if (ttl <= 0) return { value: await provider.availability(query), cache: 'off' };
    const { nowMs, ...identity } = query;
    const key = `${CACHE_PREFIX}:${provider.slug}:${createHash('sha256').update(JSON.stringify(identity)).digest('hex')}`;
    const entry = await this.read(key);
    if (entry) {
      const age = nowMs - entry.stored_at;
      if (age >= 0 && age < ttl) return { value: entry.value, cache: 'hit' };
      if (allowStale) {
        void this.refresh(key, provider, query, true).catch(() => undefined);
        return { value: entry.value, cache: 'stale' };
      }
    }
    return { value: await this.refresh(key, provider, query, false), cache: 'miss' };
  }

  private async read(key: string): Promise<CacheEntry | null> {
    try {
      const raw = await this.redis.getBuffer(key);
      return raw?.length ? this.parsed.parse(key, raw) : null;
    } catch {
      return null;
    }
  }

  private async refresh(key: string, provider: AppointmentProvider, query: AvailabilityQuery, background: boolean): Promise<ProviderAvailability | null> {
    if (background) {
      // One background refresh at a time per key.
      const locked = await this.redis.set(`${key}:refreshing`, '1', 'PX', 10_000, 'NX');
      if (locked !== 'OK') return null;
    }
    const value = await provider.availability({ ...query, nowMs: this.now() });
    const keepMs = Math.max(this.config.appointments.availabilityStaleTtlMs, this.config.appointments.availabilityCacheTtlMs);
    const entry: CacheEntry = { stored_at: this.now(), value };
    try {
      const raw = gzipSync(JSON.stringify(entry));
      await this.redis.set(key, raw, 'PX', keepMs);
      this.parsed.remember(key, raw, entry);
      if (background) await this.redis.del(`${key}:refreshing`);
    } catch {
      // the answer stands without the cache
    }
    return value;
  }
}
