import { randomBytes } from 'node:crypto';
import { BookingKeys, bookingKeySecret, verifyBookingKey } from '../../src/appointments/booking-key';
import { AVAILABILITY_DAYS } from '../../src/appointments/providers/appointment-provider';
import { SandboxPhlebotomyProvider } from '../../src/appointments/providers/sandbox-phlebotomy.provider';
import { SandboxPscProvider } from '../../src/appointments/providers/sandbox-psc.provider';
import { addDays, formatInZone, zonedToUtc } from '../../src/appointments/zoned-time';

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
      '07:00', '07:30', '08:00', '08:30', '09:00', '09:30', '10:00', '10:30', '11:00', '11:30',
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
