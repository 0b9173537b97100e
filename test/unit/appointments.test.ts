import { gunzipSync, gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { AppointmentAvailabilityService } from '../../src/appointments/appointment-availability.service';
import { AppointmentsRepository } from '../../src/appointments/appointments.repository';
import { BookingKeys, bookingKeySecret, signBookingKey, verifyBookingKey } from '../../src/appointments/booking-key';
import { AVAILABILITY_DAYS } from '../../src/appointments/providers/appointment-provider';
import { SandboxPhlebotomyProvider } from '../../src/appointments/providers/sandbox-phlebotomy.provider';
import { SandboxPscProvider } from '../../src/appointments/providers/sandbox-psc.provider';
import { addDays, formatInZone, offsetMinutes, todayIn, zonedToUtc } from '../../src/appointments/zoned-time';

import { loadConfig } from '../../src/config/config';

/** Availability needs no callbacks; booking is tested end to end (test/e2e/appointments-booking.test.ts). */
const noCallbacks = { schedule: async () => undefined };
const config = loadConfig({ ...process.env, PHI_ENCRYPTION_KEY: randomBytes(32).toString('base64') });

const localHour = (iso: string) => iso.slice(11, 16);
const offset = (iso: string) => iso.slice(19);
const BEFORE = Date.parse('2027-01-01T00:00:00Z');

describe('zoned time', () => {
  it('keeps local wall-clock hours across the March 2027 US DST change', () => {
    const before = zonedToUtc('2027-03-13', 7, 0, 'America/New_York');
    const after = zonedToUtc('2027-03-15', 7, 0, 'America/New_York');
    expect(new Date(before).toISOString()).toBe('2027-03-13T12:00:00.000Z');
    expect(new Date(after).toISOString()).toBe('2027-03-15T11:00:00.000Z');
    expect(formatInZone(before, 'America/New_York')).toBe('2027-03-13T07:00:00-05:00');
    expect(formatInZone(after, 'America/New_York')).toBe('2027-03-15T07:00:00-04:00');
    // Arizona has no DST.
    expect(formatInZone(zonedToUtc('2027-03-15', 7, 0, 'America/Phoenix'), 'America/Phoenix')).toBe('2027-03-15T07:00:00-07:00');
    expect(addDays('2027-02-27', 2)).toBe('2027-03-01');
  });

  it('is exact around transitions in the middle of a UTC hour (offsets are remembered per hour)', () => {
    // St. John's springs forward at 02:00 NST = 05:30 UTC; Lord Howe moves by 30 minutes at 15:30 UTC.
    for (let round = 0; round < 2; round += 1) {
      expect(formatInZone(Date.parse('2027-03-14T05:00:00Z'), 'America/St_Johns')).toBe('2027-03-14T01:30:00-03:30');
      expect(formatInZone(Date.parse('2027-03-14T05:29:59Z'), 'America/St_Johns')).toBe('2027-03-14T01:59:59-03:30');
      expect(formatInZone(Date.parse('2027-03-14T05:30:00Z'), 'America/St_Johns')).toBe('2027-03-14T03:00:00-02:30');
      expect(formatInZone(Date.parse('2027-03-14T05:59:59Z'), 'America/St_Johns')).toBe('2027-03-14T03:29:59-02:30');
      expect(offsetMinutes(Date.parse('2026-10-03T15:29:59Z'), 'Australia/Lord_Howe')).toBe(630);
      expect(offsetMinutes(Date.parse('2026-10-03T15:30:00Z'), 'Australia/Lord_Howe')).toBe(660);
      expect(zonedToUtc('2027-03-14', 3, 0, 'America/St_Johns')).toBe(Date.parse('2027-03-14T05:30:00Z'));
      expect(zonedToUtc('2027-03-13', 23, 0, 'America/St_Johns')).toBe(Date.parse('2027-03-14T02:30:00Z'));
      expect(todayIn('Pacific/Kiritimati', Date.parse('2027-03-14T09:59:59Z'))).toBe('2027-03-14');
      expect(todayIn('Pacific/Kiritimati', Date.parse('2027-03-14T10:00:00Z'))).toBe('2027-03-15');
    }
  });
});

describe('sandbox PSC provider', () => {
  const provider = new SandboxPscProvider(noCallbacks, config);
  const query = (extra: object = {}) => ({
    kind: 'psc' as const,
    lab: 'quest',
    zip: '10001',
    radius: 20,
    startDate: '2027-03-10',
    days: AVAILABILITY_DAYS,
    nowMs: BEFORE,
    ...extra,
  });

  it('gives 14 days per site with 07:00–15:00 local slots every 20 minutes through the DST change', async () => {
    const result = await provider.availability(query({ siteCodes: ['QSB-NYC-0001'] }));
    expect(result?.timezone).toBe('America/New_York');
    const days = result!.days;
    expect(days.map((day) => day.date)).toEqual(Array.from({ length: 14 }, (_, i) => addDays('2027-03-10', i)));
    for (const day of days) {
      if (day.date === '2027-03-14' || day.date === '2027-03-21') {
        expect(day.slots).toEqual([]); // Sundays: closed, but the day is still listed
        continue;
      }
      expect(day.slots).toHaveLength(24);
      expect(localHour(day.slots[0].start)).toBe('07:00');
      expect(localHour(day.slots[1].start)).toBe('07:20');
      expect(localHour(day.slots.at(-1)!.start)).toBe('14:40');
      expect(localHour(day.slots.at(-1)!.end)).toBe('15:00');
      expect(offset(day.slots[0].start)).toBe(day.date < '2027-03-14' ? '-05:00' : '-04:00');
    }
  });

  it('filters by radius from the zip centroid and by site codes', async () => {
    const near = await provider.availability(query({ radius: 10 }));
    const codes = [...new Set(near!.days.map((day) => day.location!.code))];
    expect(codes).toEqual(['QSB-NYC-0001', 'QSB-NYC-0002', 'QSB-NJ-0001']);
    expect(near!.days[0].location!.distance).toBeLessThan(1);
    expect(await provider.availability(query({ zip: '02108', radius: 10, siteCodes: ['QSB-NYC-0001'] }))).toBeNull();
    expect(await provider.availability(query({ zip: '85004', radius: 100 }))).toBeNull();
    expect(await provider.availability(query({ zip: '99999' }))).toBeNull();
  });
});

describe('sandbox phlebotomy provider', () => {
  const provider = new SandboxPhlebotomyProvider(noCallbacks, config);
  const address = (zip: string) => ({ first_line: '1 Main St', city: 'X', state: 'AZ', zip_code: zip });

  it('covers 85004 and 54650 only, 14 days, 07:00–12:00 local every 30 minutes', async () => {
    const phoenix = await provider.availability({ kind: 'phlebotomy', address: address('85004'), startDate: '2027-03-10', days: 14, nowMs: BEFORE });
    expect(phoenix?.timezone).toBe('America/Phoenix');
    expect(phoenix!.days).toHaveLength(14);
    expect(phoenix!.days[0].slots.map((slot) => localHour(slot.start))).toEqual([
      '07:00',
      '07:30',
      '08:00',
      '08:30',
      '09:00',
      '09:30',
      '10:00',
      '10:30',
      '11:00',
      '11:30',
    ]);
    expect(phoenix!.days[0].slots[0]).toMatchObject({ is_priority: true, price: 25 });
    const chicago = await provider.availability({ kind: 'phlebotomy', address: address('54650'), startDate: '2027-03-10', days: 14, nowMs: BEFORE });
    expect(chicago?.timezone).toBe('America/Chicago');
    expect(offset(chicago!.days[0].slots[0].start)).toBe('-06:00');
    expect(offset(chicago!.days[6].slots[0].start)).toBe('-05:00');
    expect(await provider.availability({ kind: 'phlebotomy', address: address('10001'), startDate: '2027-03-10', days: 14, nowMs: BEFORE })).toBeNull();
  });

  it('leaves out slots that already started but keeps the day', async () => {
    const now = Date.parse('2027-03-10T17:10:00Z'); // 10:10 in Phoenix
    const result = await provider.availability({ kind: 'phlebotomy', address: address('85004'), startDate: '2027-03-10', days: 14, nowMs: now });
    expect(result!.days[0].slots.map((slot) => localHour(slot.start))).toEqual(['10:30', '11:00', '11:30']);
    expect(result!.days).toHaveLength(14);
  });
});

describe('booking keys', () => {
  const phiKey = randomBytes(32);
  const slot = {
    kind: 'psc' as const,
    provider: 'sandbox_psc',
    team_id: 'team-1',
    site: 'QSB-NYC-0001',
    start: '2027-03-15T07:00:00-04:00',
    end: '2027-03-15T07:20:00-04:00',
  };

  it('verifies without storage until it expires 10 minutes after issue', () => {
    let now = Date.parse('2027-03-01T12:00:00Z');
    const keys = new BookingKeys(phiKey, () => now);
    const { booking_key, expires_at } = keys.issue(slot);
    expect(expires_at).toBe('2027-03-01T12:10:00.000Z');
    expect(keys.verifyBookingKey(booking_key)).toEqual({ ...slot, expires_at });
    now += 9 * 60_000;
    expect(keys.verifyBookingKey(booking_key)).toMatchObject({ site: 'QSB-NYC-0001' });
    now += 60_000;
    expect(keys.verifyBookingKey(booking_key)).toBe('expired');
    expect(verifyBookingKey(booking_key, bookingKeySecret(phiKey), Date.parse('2027-03-01T12:05:00Z'))).toMatchObject(slot);
  });

  it('issues for a whole answer the very keys signBookingKey gives, all expiring together', () => {
    let now = Date.parse('2027-03-01T12:00:00Z');
    const keys = new BookingKeys(phiKey, () => now);
    const secret = bookingKeySecret(phiKey);
    const issuer = keys.issuer({ kind: slot.kind, provider: slot.provider, team_id: slot.team_id });
    expect(issuer.expires_at).toBe('2027-03-01T12:10:00.000Z');
    now += 1234; // one expiry per answer, from when the issuer was made
    const cases: Array<[string, string, string]> = [
      [slot.site, slot.start, slot.end],
      ['QSB-NYC-0002', slot.start, slot.end],
      [slot.site, '2027-03-15T07:20:00-04:00', '2027-03-15T07:40:00-04:00'],
      ['Zürich "Süd" \\ ☃ \n', slot.start, slot.end], // escaped and multi-byte
      ['85004', 'x'.repeat(900), '€'.repeat(300)], // longer than the signer's first buffers (the key stays under 4096)
      [slot.site, slot.start, slot.end], // after growing
    ];
    for (const [site, start, end] of cases) {
      const key = issuer.issue(site, start, end);
      const expected = { ...slot, site, start, end, expires_at: issuer.expires_at };
      expect(key).toBe(signBookingKey(secret, expected));
      expect(verifyBookingKey(key, secret, now)).toEqual(expected);
      expect(keys.verifyBookingKey(key)).toEqual(expected);
    }
    expect(keys.issue(slot).booking_key).toBe(signBookingKey(secret, { ...slot, expires_at: '2027-03-01T12:10:01.234Z' }));
  });

  it('refuses tampered, foreign and malformed keys', () => {
    const now = Date.parse('2027-03-01T12:00:00Z');
    const keys = new BookingKeys(phiKey, () => now);
    const { booking_key } = keys.issue(slot);
    const [version, body, mac] = booking_key.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), site: 'OTHER' })).toString('base64url');
    expect(keys.verifyBookingKey(`${version}.${forged}.${mac}`)).toBe('invalid');
    expect(new BookingKeys(randomBytes(32), () => now).verifyBookingKey(booking_key)).toBe('invalid');
    for (const bad of ['', 'x', 'bk1.a.b', `bk2.${body}.${mac}`, `${booking_key}.extra`]) {
      expect(keys.verifyBookingKey(bad)).toBe('invalid');
    }
  });
});

describe('availability cache', () => {
  const store = new Map<string, Buffer>();
  const redis = {
    getBuffer: async (key: string) => store.get(key) ?? null,
    set: async (key: string, value: string | Buffer) => {
      store.set(key, Buffer.from(value));
      return 'OK';
    },
    del: async () => 1,
  };
  const now = Date.parse('2027-03-01T12:00:00Z');
  const cached = loadConfig({ ...process.env, PHI_ENCRYPTION_KEY: randomBytes(32).toString('base64'), APPOINTMENT_AVAILABILITY_CACHE_TTL: '10m' });
  const psc = new SandboxPscProvider(noCallbacks, cached);
  // A data source whose pg pool (runPrepared) holds no seats.
  const noSeats = {
    driver: {
      master: { connect: async () => ({ query: async () => ({ rows: [] }), on: () => undefined, removeListener: () => undefined, release: () => undefined }) },
    },
  };
  const service = new AppointmentAvailabilityService(
    cached,
    redis as never,
    new SandboxPhlebotomyProvider(noCallbacks, cached),
    psc,
    () => now,
    new AppointmentsRepository(noSeats as never),
  );
  const ask = () => service.pscAvailability('team-1', { lab: 'quest', startDate: '2027-03-10', zipCode: '10001', radius: 10 });

  it('answers a hit like the miss it copies, and follows every change of the entry in Redis', async () => {
    const miss = await ask();
    expect(miss.cache).toBe('miss');
    const hit = await ask();
    expect(hit.cache).toBe('hit');
    expect(hit.body).toEqual(miss.body);
    expect(psc.calls).toBe(1);
    // Someone else's copy (another instance, a refresh) replaces the entry: the next hit reads it.
    const [key] = [...store.keys()];
    // Entries are gzipped JSON, a few KB where the JSON is tens.
    const json = gunzipSync(store.get(key)!).toString();
    expect(store.get(key)!.length).toBeLessThan(json.length / 5);
    const entry = JSON.parse(json);
    entry.value.days[0].slots = entry.value.days[0].slots.slice(1).map((slot: object) => ({ ...slot, num_appointments_available: 1 }));
    store.set(key, gzipSync(JSON.stringify(entry)));
    const changed = await ask();
    expect(changed.cache).toBe('hit');
    expect(changed.body.slots[0].slots).toHaveLength(miss.body.slots[0].slots.length - 1);
    expect(changed.body.slots[0].slots[0]).toMatchObject({ start: miss.body.slots[0].slots[1].start, num_appointments_available: 1 });
    expect(changed.body.slots[1]).toEqual(miss.body.slots[1]);
    expect(psc.calls).toBe(1);
  });
});
