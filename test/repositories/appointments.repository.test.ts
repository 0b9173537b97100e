import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { AppointmentsRepository, type NewAppointmentRow } from '../../src/appointments/appointments.repository';
import { createOrder, createTeam, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** AppointmentsRepository: appointment rows, and the slot seats booking counts under the slot's lock. */
let db: DataSource;
let repo: AppointmentsRepository;
let team: Team;
let orderId: string;
let userId: string;

beforeAll(async () => {
  db = await testDatabase();
  repo = new AppointmentsRepository(db);
  team = await createTeam(db);
  orderId = await createOrder(db, team.teamId);
  [{ user_id: userId }] = await db.query(`SELECT user_id FROM orders WHERE id = $1`, [orderId]);
});
afterAll(async () => {
  await dropTeams(db, [team]);
  await db.destroy();
});

let n = 0;
/** A new appointment of the test's order; answers its id. */
async function appointment(fields: Partial<NewAppointmentRow> = {}): Promise<string> {
  const row: NewAppointmentRow = {
    id: randomUUID(),
    orderId,
    teamId: team.teamId,
    environment: 'sandbox',
    userId,
    n: ++n,
    type: 'patient_service_center',
    provider: 'quest',
    providerSlug: 'quest',
    providerId: `q-${randomUUID()}`,
    status: 'confirmed',
    site: 'site-1',
    location: { name: 'x' },
    addressEnc: 'sealed',
    startAt: '2026-12-01T09:00:00Z',
    endAt: '2026-12-01T09:15:00Z',
    timezone: 'America/New_York',
    notesEnc: null,
    asyncConfirmation: false,
    events: [{ status: 'confirmed' }],
    createdAt: new Date(),
    ...fields,
  };
  await db.transaction((manager) => repo.insert(manager, row));
  return row.id;
}

/** A provider slug and site of the test's own: no other test's seats are counted. */
const provider = () => `psc-${randomUUID().slice(0, 8)}`;
const at = (time: string) => new Date(`2026-12-01T${time}:00Z`);

describe('slot seats', () => {
  it('counts the seats of each site and start in the window, both ends included, of the provider only', async () => {
    const slug = provider();
    const hold = async (site: string, time: string, by = slug) =>
      db.transaction(async (manager) => repo.holdSeat(manager, await appointment(), by, site, at(time)));
    await hold('a', '09:00');
    await hold('a', '09:00');
    await hold('a', '09:30');
    await hold('b', '10:00');
    await hold('a', '10:30');
    await hold('c', '09:30');
    await hold('a', '09:30', provider());

    const slots = [
      { site: 'a', start: at('09:00') },
      { site: 'a', start: at('09:30') },
      { site: 'b', start: at('10:00') },
    ];
    const held = await repo.heldSeatsNow(slug, slots);
    expect([held.in('a', at('09:00')), held.in('a', at('09:30')), held.in('b', at('10:00')), held.in('a', at('10:30')), held.in('c', at('09:30'))]).toEqual([
      2, 1, 1, 0, 0,
    ]);
    const inTransaction = await db.transaction((manager) => repo.heldSeats(manager, slug, slots));
    expect(inTransaction.in('a', at('09:00'))).toBe(2);
    expect((await repo.heldSeatsNow(slug, [])).in('a', at('09:00'))).toBe(0);
  });

  it('holding again moves the seat (a reschedule); releasing gives it back', async () => {
    const slug = provider();
    const id = await appointment();
    const slots = [
      { site: 'a', start: at('09:00') },
      { site: 'a', start: at('11:00') },
    ];
    await db.transaction((manager) => repo.holdSeat(manager, id, slug, 'a', at('09:00')));
    await db.transaction((manager) => repo.holdSeat(manager, id, slug, 'a', at('11:00')));
    let held = await repo.heldSeatsNow(slug, slots);
    expect([held.in('a', at('09:00')), held.in('a', at('11:00'))]).toEqual([0, 1]);
    await db.transaction((manager) => repo.releaseSeat(manager, id));
    held = await repo.heldSeatsNow(slug, slots);
    expect(held.in('a', at('11:00'))).toBe(0);
  });

  it("two bookings of a slot's last seat: the second waits on the slot's lock, then sees the seat taken", async () => {
    const slug = provider();
    const slot = { site: 'a', start: at('09:00') };
    const capacity = 1;
    /** As booking does: under the slot's lock, count the seats, hold one when there is room. */
    const book = async (manager: EntityManager, appointmentId: string, beforeHolding: () => Promise<void> = async () => undefined) => {
      await repo.lockSlot(manager, `${slug}|a|${slot.start.toISOString()}`);
      const free = (await repo.heldSeats(manager, slug, [slot])).in('a', slot.start) < capacity;
      await beforeHolding();
      if (free) await repo.holdSeat(manager, appointmentId, slug, 'a', slot.start);
      return free;
    };
    let letFirstHold!: () => void;
    const firstMayHold = new Promise<void>((resolve) => (letFirstHold = resolve));
    let firstCounted!: () => void;
    const counted = new Promise<void>((resolve) => (firstCounted = resolve));
    const [a, b] = [await appointment(), await appointment()];
    const first = db.transaction((manager) =>
      book(manager, a, () => {
        firstCounted();
        return firstMayHold;
      }),
    );
    // The second booking starts once the first has counted; it must wait for the first to commit.
    await counted;
    const second = db.transaction((manager) => book(manager, b));
    for (let tries = 0, waiting = 0; waiting < 1 && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      [{ waiting }] = await db.query(`SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
    }
    letFirstHold();
    expect(await Promise.all([first, second])).toEqual([true, false]);
    expect((await repo.heldSeatsNow(slug, [slot])).in('a', slot.start)).toBe(1);
  });
});

describe('appointments', () => {
  it("applies a change: status and times replaced, its event and change id appended to the row's", async () => {
    const id = await appointment({ events: [{ status: 'pending' }], status: 'pending' });
    await db.transaction((manager) =>
      repo.applyChange(manager, id, {
        status: 'cancelled',
        startAt: null,
        endAt: null,
        notesEnc: 'notes',
        cancellationReasonId: 'reason-1',
        event: { status: 'cancelled' },
        changeId: 'change-1',
      }),
    );
    const row = await repo.byId(id);
    expect(row).toMatchObject({ status: 'cancelled', start_at: null, appointment_notes_enc: 'notes', cancellation_reason_id: 'reason-1' });
    expect(row?.events).toEqual([{ status: 'pending' }, { status: 'cancelled' }]);
    expect((row as unknown as { applied_changes: string[] }).applied_changes).toEqual(['create', 'change-1']);
  });

  it("finds the order's latest appointment by number and an appointment by the provider's id", async () => {
    const other = await createOrder(db, team.teamId);
    const latest = await appointment({ n: 1000 });
    await appointment({ n: 999 });
    expect((await repo.latestOf(orderId))?.id).toBe(latest);
    expect(await repo.latestOf(other)).toBeNull();
    const providerId = `q-${randomUUID()}`;
    const id = await appointment({ providerId, providerSlug: 'getlabs' });
    expect((await repo.byProviderId('getlabs', providerId))?.id).toBe(id);
    expect(await repo.byProviderId('quest', providerId)).toBeNull();
  });

  it('refuses a second appointment with the same number for one order', async () => {
    await appointment({ n: 5000 });
    await expect(appointment({ n: 5000 })).rejects.toThrow(/appointments_order_id_n_key/);
  });
});
