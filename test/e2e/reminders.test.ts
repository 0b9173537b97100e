import { randomUUID } from 'node:crypto';
import { DevOutbox } from '../../src/adapters/notifications/notifications';
import { OrderRemindersService } from '../../src/reminders/order-reminders.service';
import { codecOf, type EncryptionCodec } from '../../src/temporal/payload-codec';
import { orderWorkflowId } from '../../workflows/contract';
import {
  createUser,
  eventually,
  LIPID_PANEL_KIT,
  ORDER_TEST_ENV,
  orderReaches,
  partnerWebhook,
  patientAddress,
  patientDetails,
  someStartDate,
  THYROID_AT_HOME,
} from '../helpers/orders';
import { reminderHistory } from '../helpers/reminder-history';
import { codeIn, type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp-receiver';
import { call, createTenant, type Tenant, type TestStack, startStack, teamManagementApi } from '../helpers/stack';

const PHOENIX_ADDRESS = { ...patientAddress(), first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip: '85004' };
const PHYSICIAN = { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' };
/** A portal communications link in a message. */
const LINK = /https?:\/\/\S+\/p\/[0-9A-Za-z]{8}\b/;

/**
 * Reminders end to end: the order workflow's reminder timers (short here: the first reminder a
 * second after the requisition or the delivery, the next an hour later) send e-mails through the
 * SMTP adapter to a real local SMTP server, each with a portal link that works; booking, the lab
 * receiving the sample and cancelling the order cancel what no longer applies, as the workflow
 * history shows.
 */
describe('patient reminders: e-mails with portal links on the order workflow timers', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let smtp: SmtpReceiver;
  let codec: EncryptionCodec;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    stack = await startStack({
      management: true,
      env: {
        ...ORDER_TEST_ENV,
        SMTP_URL: smtp.url,
        REMINDER_BOOK_APPOINTMENT_AFTER: '1s,1h',
        REMINDER_APPOINTMENT_BEFORE: '24h',
        REMINDER_KIT_RETURN_AFTER: '1s,1h',
        REMINDER_SEND_ATTEMPTS: '2',
        REMINDER_SEND_RETRY_INTERVAL: '200ms',
      },
    });
    tenant = await createTenant(stack.db, { environment: 'production', teamName: 'Acme Health' });
    // The stack's workers encrypt every payload: the timer summaries are read with the same key.
    codec = codecOf(stack.config);
  });
  afterAll(async () => {
    await stack?.close();
    await smtp?.close();
  });

  /** A new patient (an e-mail of their own, so their messages are told apart) and an order for them. */
  async function order(owner: Tenant, body: Record<string, unknown>): Promise<{ orderId: string; email: string }> {
    const email = `patient-${randomUUID().slice(0, 8)}@example.com`;
    const userId = await createUser(stack, owner);
    const created = await call(stack.apiUrl, 'POST', '/v3/order', {
      key: owner.apiKey,
      body: { user_id: userId, patient_details: { ...patientDetails(), email }, patient_address: patientAddress(), ...body },
    });
    expect(created.status).toBe(200);
    return { orderId: created.body.order.id, email };
  }
  const history = (orderId: string) =>
    stack.temporal.workflow
      .getHandle(orderWorkflowId(orderId))
      .fetchHistory()
      .then((events) => reminderHistory(events, codec));
  const mailsTo = (email: string) => smtp.messages.filter((mail) => (Array.isArray(mail.to) ? mail.to : [mail.to]).some((to) => to?.text.includes(email)));
  const reminderRows = (orderId: string) =>
    stack.db.query(`SELECT kind, sequence, status, channel, reason FROM order_reminders WHERE order_id = $1 ORDER BY created_at`, [orderId]);

  /** A test kit of `owner` with the patient: shipped, then delivered (courier tracking). */
  async function deliveredKit(owner: Tenant, beforeDelivery?: (orderId: string) => Promise<unknown>): Promise<{ orderId: string; email: string }> {
    const placed = await order(owner, { lab_test_id: LIPID_PANEL_KIT });
    const shipped = await orderReaches(stack, owner, placed.orderId, 'transit_customer');
    const tracking = shipped.details.data.shipment.outbound_tracking_number;
    await beforeDelivery?.(placed.orderId);
    expect((await partnerWebhook(stack, 'courier', { tracking_number: tracking, status: 'with_customer' })).status).toBe(200);
    await orderReaches(stack, owner, placed.orderId, 'with_customer');
    return placed;
  }

  /** Opens a portal link as a new device: asks for a code, e-mails it, and lands on the order. */
  async function openAsNewDevice(link: string, email: string): Promise<string | null> {
    const path = new URL(link).pathname;
    const asked = await fetch(`${stack.apiUrl}${path}`, { redirect: 'manual' });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain("Let's check it's you");
    const before = smtp.messages.length;
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      redirect: 'manual' as const,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    expect((await fetch(`${stack.apiUrl}${path}/send`, form({ channel: 'email' }))).status).toBe(200);
    const code = codeIn((await smtp.nextTo(email, before)).text);
    const verified = await fetch(`${stack.apiUrl}${path}/verify`, form({ otp: code }));
    expect(verified.status).toBe(303);
    return verified.headers.get('location');
  }

  it('at home: a booking reminder with a working /p/ link; booking cancels the next one and schedules one before the appointment; cancelling the order cancels that', async () => {
    const { orderId, email } = await order(tenant, { lab_test_id: THYROID_AT_HOME, patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN });
    await orderReaches(stack, tenant, orderId, 'appointment_pending');

    const reminder = await smtp.nextTo(email, 0, 30_000);
    expect(reminder.subject).toMatch(/^Acme Health: book your appointment for your /);
    expect(reminder.text).toContain('Please book a time for a phlebotomist to visit you');
    const link = LINK.exec(reminder.text ?? '')?.[0];
    expect(link).toBeDefined();
    expect(await openAsNewDevice(link as string, email)).toBe(`/portal/orders/${orderId}`);

    // What is stored of the link opens nothing (the reminder's copy is sealed, the link's code
    // hashed), and a send run again (as after a crash before `sent` was recorded) sends the same link.
    const code = new URL(link as string).pathname.slice(3);
    const stored: Array<{ row: string }> = await stack.db.query(
      `SELECT r::text AS row FROM order_reminders r WHERE order_id = $1 UNION ALL SELECT p::text AS row FROM portal_links p WHERE order_id = $1`,
      [orderId],
    );
    expect(stored).toHaveLength(2);
    expect(stored.filter(({ row }) => row.includes(code))).toEqual([]);
    const [{ reminder_key: key }] = await stack.db.query(`SELECT reminder_key FROM order_reminders WHERE order_id = $1`, [orderId]);
    await stack.db.query(`UPDATE order_reminders SET status = 'sending' WHERE order_id = $1`, [orderId]);
    const mailed = smtp.messages.length;
    expect(await stack.api.get(OrderRemindersService).send({ orderId, kind: 'book_appointment', sequence: 1, key })).toEqual({
      outcome: 'sent',
      channel: 'email',
    });
    expect(LINK.exec((await smtp.nextTo(email, mailed)).text ?? '')?.[0]).toBe(link);

    const availability = await call(stack.apiUrl, 'POST', `/v3/order/phlebotomy/appointment/availability?start_date=${someStartDate()}`, {
      key: tenant.apiKey,
      body: { first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip_code: '85004' },
    });
    const slot = availability.body.slots.flatMap((day: { slots: Array<{ booking_key: string }> }) => day.slots)[0];
    const booked = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/phlebotomy/appointment/book`, {
      key: tenant.apiKey,
      body: { booking_key: slot.booking_key },
    });
    expect(booked.status).toBe(200);
    const upcoming = `Reminder 24h before the appointment at ${new Date(booked.body.start_at).toISOString()}`;
    expect(
      await eventually(async () => {
        const { timers } = await history(orderId);
        return timers.some((timer) => timer.summary === upcoming) ? timers : undefined;
      }, 'the pre-appointment reminder timer'),
    ).toEqual([
      { summary: 'Book-your-appointment reminder 1', outcome: 'fired' },
      { summary: 'Book-your-appointment reminder 2', outcome: 'canceled' },
      { summary: upcoming, outcome: 'pending' },
    ]);

    expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/cancel`, { key: tenant.apiKey })).status).toBe(200);
    await stack.temporal.workflow.getHandle(orderWorkflowId(orderId)).result();
    const ended = await history(orderId);
    expect(ended.timers).toEqual([
      { summary: 'Book-your-appointment reminder 1', outcome: 'fired' },
      { summary: 'Book-your-appointment reminder 2', outcome: 'canceled' },
      // Cancelling the order (and with it the appointment) cancels this one and starts no booking reminders.
      { summary: upcoming, outcome: 'canceled' },
    ]);
    expect(ended.activities).toEqual(['sendBookAppointmentReminder']);
    // orderWorkflowV2 (every new order) has reminders from its start: no ORDER_REMINDERS marker,
    // which orderWorkflow's histories carry (test/workflows/order-reminders.test.ts).
    expect(ended.patched).toBe(false);
    // The workflow has ended with nothing pending: these are all the e-mails the patient gets.
    expect(mailsTo(email).map((mail) => mail.subject)).toEqual([reminder.subject, 'Acme Health: your verification code', reminder.subject]);
    expect(await reminderRows(orderId)).toEqual([{ kind: 'book_appointment', sequence: 1, status: 'sent', channel: 'email', reason: null }]);
  });

  it('test kit: a kit-return reminder after delivery, none once the lab received the sample', async () => {
    const { orderId, email } = await deliveredKit(tenant);
    const reminder = await smtp.nextTo(email, 0, 30_000);
    expect(reminder.subject).toBe('Acme Health: please send back the kit for your Lipid Panel (test kit)');
    expect(reminder.text).toMatch(LINK);
    // Sent, and the next reminder's timer started: the e-mail arrives before the send activity
    // completes, and a lab fact recorded before that completion would (rightly) start no timer.
    await eventually(async () => {
      const { timers } = await history(orderId);
      return timers.some((timer) => timer.summary === 'Kit-return reminder 2' && timer.outcome === 'pending') ? true : undefined;
    }, 'the second kit-return reminder to be scheduled');

    expect((await partnerWebhook(stack, 'lab', { order_id: orderId, status: 'delivered_to_lab' })).status).toBe(200);
    await orderReaches(stack, tenant, orderId, 'delivered_to_lab');
    const received = await eventually(async () => {
      const found = await history(orderId);
      return found.timers.length === 2 && found.timers[1].outcome === 'canceled' ? found : undefined;
    }, 'the second kit-return reminder to be cancelled');
    expect(received.timers).toEqual([
      { summary: 'Kit-return reminder 1', outcome: 'fired' },
      { summary: 'Kit-return reminder 2', outcome: 'canceled' },
    ]);
    expect(received.activities).toEqual(['sendKitReturnReminder']);
    expect(mailsTo(email)).toHaveLength(1);

    // The activity run again (as Temporal retries it) finds the reminder sent and sends nothing.
    const again = await stack.api.get(OrderRemindersService).send({ orderId, kind: 'kit_return', sequence: 1, key: 'kit_return:1' });
    expect(again).toEqual({ outcome: 'sent', channel: 'email' });
    expect(mailsTo(email)).toHaveLength(1);
    expect(await reminderRows(orderId)).toEqual([{ kind: 'kit_return', sequence: 1, status: 'sent', channel: 'email', reason: null }]);
  });

  it('the team decides: reminders off → recorded as skipped; e-mail off → sent by SMS; a patient with no details on file → skipped; the order goes on', async () => {
    const quiet = await createTenant(stack.db, { environment: 'production' });
    const turnedOff = await teamManagementApi(stack, quiet)('PATCH', '', { lab_tests_patient_reminders_enabled: false });
    expect(turnedOff.status).toBe(200);
    expect(turnedOff.body.lab_tests_patient_reminders_enabled).toBe(false);
    const textOnly = await createTenant(stack.db, { environment: 'production', teamName: 'Text Only Labs' });
    expect((await teamManagementApi(stack, textOnly)('PATCH', '', { lab_tests_patient_email_communication_enabled: false })).status).toBe(200);

    const off = await deliveredKit(quiet);
    const sms = await deliveredKit(textOnly);
    // Details wiped before delivery (as for a user whose data was erased): nobody to write to.
    const unreachable = await deliveredKit(tenant, (orderId) => stack.db.query(`UPDATE orders SET patient_details_enc = NULL WHERE id = $1`, [orderId]));

    const cases = [
      { placed: off, owner: quiet, row: { status: 'skipped', channel: null, reason: 'disabled' } },
      { placed: sms, owner: textOnly, row: { status: 'sent', channel: 'sms', reason: null } },
      { placed: unreachable, owner: tenant, row: { status: 'skipped', channel: null, reason: 'no_contact' } },
    ];
    for (const { placed, owner, row } of cases) {
      const rows = await eventually(async () => {
        const found = await reminderRows(placed.orderId);
        return found.length > 0 && found[0].status !== 'sending' ? found : undefined;
      }, `the reminder of ${placed.orderId} to be recorded`);
      expect(rows).toEqual([{ kind: 'kit_return', sequence: 1, ...row }]);
      // Skipped is an answer, not a failure: the activity completed and the order still runs.
      expect((await history(placed.orderId)).failedActivities).toEqual([]);
      const current = await call(stack.apiUrl, 'GET', `/v3/order/${placed.orderId}`, { key: owner.apiKey });
      expect(current.body.last_event.status).toMatch(/\.with_customer$/);
      expect(mailsTo(placed.email)).toEqual([]);
    }
    const texts = stack.api
      .get(DevOutbox)
      .list()
      .filter((message) => message.channel === 'sms' && /Text Only Labs: please collect your sample/.test(message.text));
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatchObject({ to: patientDetails().phone_number, text: expect.stringMatching(LINK) });
  });
});
