import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { type OrderFilters, OrderListRepository } from '../../src/orders/order-list.repository';
import type { Shipment } from '../../src/orders/order.entities';
import { OrdersRepository, type Scope } from '../../src/orders/orders.repository';
import { createOrder, createTeam, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** OrdersRepository (an order's rows) and OrderListRepository (the list's filters and order), on team-scoped rows. */
let db: DataSource;
let orders: OrdersRepository;
let list: OrderListRepository;
const teams: Team[] = [];

beforeAll(async () => {
  db = await testDatabase();
  orders = new OrdersRepository(db);
  list = new OrderListRepository(db);
});
afterAll(async () => {
  await dropTeams(db, teams);
  await db.destroy();
});

async function scope(): Promise<Scope> {
  const team = await createTeam(db);
  teams.push(team);
  return { teamId: team.teamId, environment: 'sandbox' };
}

const transition = (orderId: string, seq: number, low: string, top = 'collecting_sample') =>
  db.transaction((manager) => orders.recordTransition(manager, { orderId, seq, status: low, statusDetail: null, top: top as never, low: low as never }));
const orderRow = async (id: string) =>
  (
    await db.query(
      `SELECT o.status, o.low_level_status, t.status AS transaction_status FROM orders o JOIN order_transactions t ON t.id = o.order_transaction_id WHERE o.id = $1`,
      [id],
    )
  )[0];

describe('transitions', () => {
  it('a transition written again (a retried activity) answers the first event and changes nothing', async () => {
    const { teamId } = await scope();
    const id = await createOrder(db, teamId);
    const first = await transition(id, 1, 'requisition_created');
    expect(first.recorded).toBe(true);
    const again = await transition(id, 1, 'sample_with_lab', 'sample_with_lab');
    expect(again).toEqual({ eventId: first.eventId, recorded: false });
    expect(await orderRow(id)).toEqual({ status: 'collecting_sample', low_level_status: 'requisition_created', transaction_status: 'active' });
    expect(await orders.latestSeq(id)).toBe(1);
  });

  it('an order that ends ends its transaction with it (completed or cancelled)', async () => {
    const { teamId } = await scope();
    const [done, cancelled] = [await createOrder(db, teamId), await createOrder(db, teamId)];
    await transition(done, 1, 'completed', 'completed');
    await transition(cancelled, 1, 'cancelled', 'cancelled');
    expect((await orderRow(done)).transaction_status).toBe('completed');
    expect((await orderRow(cancelled)).transaction_status).toBe('cancelled');
  });

  it("reads each order's events in sequence order, an order without events as an empty list", async () => {
    const { teamId } = await scope();
    const [a, b] = [await createOrder(db, teamId), await createOrder(db, teamId)];
    await transition(a, 2, 'requisition_created');
    await transition(a, 1, 'ordered');
    await transition(a, 3, 'transit_customer');
    const events = await orders.eventsOf([a, b]);
    expect(events.get(a)?.map((event) => event.seq)).toEqual([1, 2, 3]);
    expect(events.get(b)).toEqual([]);
    expect((await list.lowLevelStatusTimes([a, b])).size).toBe(1);
    const [latest] = await db.query(`SELECT created_at FROM order_events WHERE order_id = $1 AND seq = 3`, [a]);
    expect((await list.lowLevelStatusTimes([a])).get(a)).toEqual(latest.created_at);
  });
});

describe('writes once', () => {
  const shipment = (tracking: string) => ({ outbound_tracking_number: tracking, inbound_tracking_number: `in-${tracking}` }) as unknown as Shipment;

  it('stores the first shipment only; its tracking numbers both find the order', async () => {
    const { teamId } = await scope();
    const id = await createOrder(db, teamId);
    const tracking = `t-${randomUUID()}`;
    expect(await orders.setShipmentOnce(id, shipment(tracking))).toEqual(shipment(tracking));
    expect(await orders.setShipmentOnce(id, shipment('other'))).toEqual(shipment(tracking));
    expect((await orders.findByTrackingNumber(tracking))?.id).toBe(id);
    expect((await orders.findByTrackingNumber(`in-${tracking}`))?.id).toBe(id);
    expect(await orders.findByTrackingNumber('other')).toBeNull();
    expect(await orders.setShipmentOnce(randomUUID(), shipment('x'))).toBeNull();
  });

  it('confirms a workflow start once: a later confirmation keeps the first time', async () => {
    const { teamId } = await scope();
    const id = await createOrder(db, teamId);
    await orders.markWorkflowsStarted([id]);
    const [first] = await db.query(`SELECT workflow_started_at FROM orders WHERE id = $1`, [id]);
    await orders.markWorkflowsStarted([id]);
    expect(await db.query(`SELECT workflow_started_at FROM orders WHERE id = $1`, [id])).toEqual([first]);
    expect(first.workflow_started_at).toBeInstanceOf(Date);
  });

  it('requisition inputs are replaced, a health insurance is stored once per id', async () => {
    const { teamId } = await scope();
    const id = await createOrder(db, teamId);
    await db.transaction((manager) => orders.setRequisitionInputs(manager, id, 'first'));
    await db.transaction((manager) => orders.setRequisitionInputs(manager, id, 'second'));
    expect(await orders.requisitionInputsOf(id)).toBe('second');
    const [{ user_id: userId }] = await db.query(`SELECT user_id FROM orders WHERE id = $1`, [id]);
    const insuranceId = randomUUID();
    await db.transaction((manager) => orders.insertHealthInsurance(manager, { id: insuranceId, userId, sealed: 'a' }));
    await db.transaction((manager) => orders.insertHealthInsurance(manager, { id: insuranceId, userId, sealed: 'b' }));
    expect(await orders.healthInsuranceOf({ healthInsuranceId: insuranceId })).toBe('a');
    expect(await orders.healthInsuranceOf({ healthInsuranceId: null })).toBeNull();
  });

  it("finds the recreation of an order in its transaction, under the transaction's lock", async () => {
    const { teamId } = await scope();
    const original = await createOrder(db, teamId, { createdAt: '2026-10-01T00:00:00Z' });
    const entity = (await orders.findById(original))!;
    expect(await db.transaction((manager) => orders.lockForRecreation(manager, entity))).toBeNull();
    const recreated = randomUUID();
    await db.query(
      `INSERT INTO orders (id, team_id, environment, user_id, lab_test_id, lab_id, lab_account_id, collection_method, flow, status, low_level_status, order_transaction_id, origin, created_at)
       SELECT $2, team_id, environment, user_id, lab_test_id, lab_id, lab_account_id, collection_method, flow, status, low_level_status, order_transaction_id, 'recreation', '2026-10-02T00:00:00Z'
         FROM orders WHERE id = $1`,
      [original, recreated],
    );
    expect(await db.transaction((manager) => orders.lockForRecreation(manager, entity))).toBe(recreated);
  });
});

describe('team scope', () => {
  it("never answers another team's or environment's order", async () => {
    const mine = await scope();
    const theirs = await scope();
    const sampleId = `s-${randomUUID()}`;
    const id = await createOrder(db, mine.teamId, { sampleId });
    expect((await orders.findScoped(mine, id))?.id).toBe(id);
    expect(await orders.findScoped(theirs, id)).toBeNull();
    expect(await orders.findScoped({ ...mine, environment: 'production' }, id)).toBeNull();
    expect(await orders.sampleIdTaken(mine, sampleId)).toBe(true);
    expect(await orders.sampleIdTaken(theirs, sampleId)).toBe(false);
    expect(await orders.countOf(mine)).toBe(1);
    expect(await orders.countOf(theirs)).toBe(0);
  });

  it("lists the physicians of the team's orders once each, by last name", async () => {
    const mine = await scope();
    const theirs = await scope();
    const physician = (first: string, last: string, npi: string) => JSON.stringify({ first_name: first, last_name: last, npi });
    for (const [teamId, value] of [
      [mine.teamId, physician('Zoe', 'Adams', '2')],
      [mine.teamId, physician('Ann', 'Baker', '1')],
      [mine.teamId, physician('Ann', 'Baker', '1')],
      [mine.teamId, null],
      [theirs.teamId, physician('Eve', 'Other', '3')],
    ] as const) {
      const id = await createOrder(db, teamId);
      await db.query(`UPDATE orders SET physician = $2::jsonb WHERE id = $1`, [id, value]);
    }
    expect(await orders.physiciansOf(mine)).toEqual([
      { first_name: 'Zoe', last_name: 'Adams', npi: '2' },
      { first_name: 'Ann', last_name: 'Baker', npi: '1' },
    ]);
  });
});

describe('the order list', () => {
  let mine: Scope;
  const ids: Record<string, string> = {};
  const at = (day: number) => `2026-06-${String(day).padStart(2, '0')}T00:00:00.000Z`;

  beforeAll(async () => {
    mine = await scope();
    const theirs = await scope();
    // Three orders created at one instant (ties broken by id), and others around them.
    for (const name of ['tie1', 'tie2', 'tie3']) ids[name] = await createOrder(db, mine.teamId, { createdAt: at(10), updatedAt: at(20) });
    ids.early = await createOrder(db, mine.teamId, {
      createdAt: at(1),
      updatedAt: at(25),
      interpretation: 'critical',
      lowLevelStatus: 'completed',
      collectionMethod: 'walk_in_test',
    });
    ids.late = await createOrder(db, mine.teamId, { createdAt: at(15), updatedAt: at(16), interpretation: 'unknown', activateBy: '2099-01-01' });
    ids.normal = await createOrder(db, mine.teamId, { createdAt: at(12), updatedAt: at(12), interpretation: 'normal', activateBy: '2020-01-01' });
    await createOrder(db, theirs.teamId, { createdAt: at(10) });
    await createOrder(db, mine.teamId, { createdAt: at(10), environment: 'production' });
  });

  const names = async (filters: Partial<OrderFilters>) =>
    (await list.namesOf(mine, { orderBy: 'created_at', direction: 'ASC', ...filters })).map((row) => Object.entries(ids).find(([, id]) => id === row.id)?.[0]);
  const ties = () => ['tie1', 'tie2', 'tie3'].sort((a, b) => (ids[a] < ids[b] ? -1 : 1));

  it('orders by creation or update, ties by id, in either direction; never another team or environment', async () => {
    expect(await names({})).toEqual(['early', ...ties(), 'normal', 'late']);
    expect(await names({ direction: 'DESC' })).toEqual(['late', 'normal', ...ties().reverse(), 'early']);
    expect(await names({ orderBy: 'updated_at' })).toEqual(['normal', 'late', ...ties(), 'early']);
  });

  it('created and updated bounds include their ends', async () => {
    expect(await names({ createdFrom: new Date(at(10)), createdTo: new Date(at(12)) })).toEqual([...ties(), 'normal']);
    expect(await names({ updatedFrom: new Date(at(25)) })).toEqual(['early']);
  });

  it('interpretation `unknown` includes orders without one; not critical includes them too', async () => {
    expect(await names({ interpretation: 'unknown' as never })).toEqual([...ties(), 'late']);
    expect(await names({ isCritical: true })).toEqual(['early']);
    expect(await names({ isCritical: false })).toEqual([...ties(), 'normal', 'late']);
    expect(await names({ interpretation: 'normal' as never })).toEqual(['normal']);
  });

  it('scheduled means an activate_by day still ahead; current is every other order', async () => {
    expect(await names({ activationTypes: ['scheduled'] })).toEqual(['late']);
    expect(await names({ activationTypes: ['current'] })).toEqual(['early', ...ties(), 'normal']);
    expect(await names({ activationTypes: ['current', 'scheduled'] })).toHaveLength(6);
  });

  it('filters by status, collection method and ids', async () => {
    expect(await names({ lowLevelStatuses: ['completed' as never] })).toEqual(['early']);
    expect(await names({ collectionMethods: ['walk_in_test'] })).toEqual(['early']);
    expect(await names({ orderIds: [ids.late, ids.tie1, randomUUID()] })).toEqual(['tie1', 'late']);
  });
});
