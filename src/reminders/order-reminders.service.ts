import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { EMAIL_SENDER, type EmailSender, SMS_SENDER, type SmsSender } from '../adapters/notifications/notifications';
import { AppointmentBookingsService } from '../appointments/appointment-bookings.service';
import type { AppointmentView } from '../appointments/appointment-views';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { LabTestsRepository } from '../lab-tests/lab-tests.repository';
import type { OrderEntity } from '../orders/order.entities';
import { OrdersRepository } from '../orders/orders.repository';
import { PortalAccessService } from '../portal/portal-access.service';
import { portalBrand } from '../portal/portal-brand';
import { PortalUrlsService } from '../portal/portal-urls.service';
import { TeamSettingsRepository } from '../tenancy/team-settings.repository';
import { appointmentKindOf, RESCHEDULABLE } from '../../workflows/appointment/appointment-lifecycle';
import type { ReminderSkipReason, SendReminderInput, SendReminderResult } from '../../workflows/contract';
import { isAppointmentFlow } from '../../workflows/order/order-statuses';
import { isTerminal } from '../../workflows/order/order-lifecycle';
import { type OrderReminderRow, OrderRemindersRepository } from './order-reminders.repository';
import { reminderMessage } from './reminder-messages';

/** A business reason not to send: recorded on the reminder's row, the order goes on. */
class Skip {
  constructor(readonly reason: ReminderSkipReason) {}
}

/**
 * Sends the reminders the order workflow's timers call for (the reminder activities): to the
 * patient's e-mail, or by SMS when there is no e-mail, as the team's communication settings
 * allow, with a portal communications link to the order made by the portal's own
 * PortalUrlsService. Once per (order, reminder key): the row in order_reminders says whether an
 * earlier attempt already sent it (or skipped it), and keeps the link for a retry. A send that
 * fails throws (the activity retries it) after counting the failure on the row.
 *
 * Exactly once is not possible with SMTP: a crash between the server's acceptance and `sent`
 * being recorded would send again on retry; the window is the one UPDATE after the send.
 */
@Injectable()
export class OrderRemindersService {
  constructor(
    private readonly reminders: OrderRemindersRepository,
    private readonly orders: OrdersRepository,
    private readonly teams: TeamSettingsRepository,
    private readonly labTests: LabTestsRepository,
    private readonly urls: PortalUrlsService,
    private readonly access: PortalAccessService,
    private readonly bookings: AppointmentBookingsService,
    @Inject(EMAIL_SENDER) private readonly email: EmailSender,
    @Inject(SMS_SENDER) private readonly sms: SmsSender,
    private readonly cipher: PhiCipher,
  ) {}

  async send(input: SendReminderInput): Promise<SendReminderResult> {
    const order = await this.orders.findById(input.orderId);
    // The order's row is gone (its user was erased): nothing to remind, nothing to record it on.
    if (!order) return { outcome: 'skipped', reason: 'no_longer_applies' };
    const row = await this.reminders.claim({ order_id: order.id, reminder_key: input.key, team_id: order.teamId, kind: input.kind, sequence: input.sequence });
    if (row.status === 'sent') return { outcome: 'sent', channel: row.channel ?? 'email' };
    if (row.status === 'skipped') return { outcome: 'skipped', reason: row.reason ?? 'no_longer_applies' };
    try {
      return await this.deliver(order, input, row);
    } catch (error) {
      if (error instanceof Skip) {
        await this.reminders.markSkipped(order.id, input.key, error.reason);
        return { outcome: 'skipped', reason: error.reason };
      }
      // A mail server's answer may quote the recipient: the failure goes to the row and to the
      // workflow history (failure messages are not encrypted) without it.
      const reason = withoutContacts(error instanceof Error ? error.message : String(error));
      await this.reminders.recordFailure(order.id, input.key, reason);
      throw new Error(`The reminder was not sent: ${reason}`);
    }
  }

  private async deliver(order: OrderEntity, input: SendReminderInput, row: OrderReminderRow): Promise<SendReminderResult> {
    const settings = await this.teams.patientReminders(order.teamId);
    if (!settings.enabled || (!settings.email && !settings.sms)) throw new Skip('disabled');
    if (isTerminal(order.lowLevelStatus)) throw new Skip('no_longer_applies');
    const brand = await this.teams.brandOf(order.teamId);
    if (!brand) throw new Skip('no_longer_applies');
    // labflow acts for the team (no API key), as the portal does.
    const team: TeamPrincipal = { teamId: order.teamId, environment: order.environment, region: brand.region, apiKeyId: null };
    const appointment = await this.appointmentFor(team, order, input);

    const contacts = await this.access.contactsOf(team, order.userId);
    const channel = settings.email && contacts.email ? 'email' : settings.sms && contacts.sms ? 'sms' : null;
    if (!channel) throw new Skip('no_contact');
    const link = this.keptLink(row) ?? (await this.newLink(team, order, input.key));
    const test = await this.labTests.findVisible(team, order.labTestId);
    const shown = portalBrand(brand);
    const message = reminderMessage({
      kind: input.kind,
      brandName: shown.name,
      testName: test?.name ?? 'lab test',
      link,
      atHome: order.flow === 'at_home_phlebotomy',
      ...(appointment?.start_at ? { appointment: { startAt: appointment.start_at, timeZone: appointment.iana_timezone ?? null } } : {}),
      support: shown.supportPhone ?? shown.supportEmail,
    });
    if (channel === 'email') await this.email.send({ to: contacts.email as string, subject: message.subject, text: message.text });
    else await this.sms.send({ to: contacts.sms as string, text: message.sms });
    await this.reminders.markSent(order.id, input.key, channel);
    return { outcome: 'sent', channel };
  }

  /**
   * What Postgres says of the order's appointment, checked against the reminder: nothing booked
   * for a booking reminder; for a pre-appointment reminder, the same appointment, still at the
   * time it was scheduled for and not begun. The workflow cancels timers that no longer apply;
   * this catches a booking that landed while the reminder was on its way.
   */
  private async appointmentFor(team: TeamPrincipal, order: OrderEntity, input: SendReminderInput): Promise<AppointmentView | null> {
    if (input.kind === 'kit_return' || !isAppointmentFlow(order.flow)) return null;
    const latest = await this.bookings.get(team, order.id, appointmentKindOf(order.flow)).catch(nullIfNotFound);
    if (input.kind === 'book_appointment') {
      if (latest && RESCHEDULABLE.includes(latest.status)) throw new Skip('no_longer_applies');
      return null;
    }
    const expected = input.appointment;
    const same = latest && expected && latest.id === expected.appointmentId && latest.start_at && Date.parse(latest.start_at) === Date.parse(expected.startAt);
    if (!same || !RESCHEDULABLE.includes(latest.status)) throw new Skip('no_longer_applies');
    return latest;
  }

  /** A communications link to the order, through the portal's own service; kept for retries. */
  private async newLink(team: TeamPrincipal, order: OrderEntity, key: string): Promise<string> {
    let url: string;
    try {
      ({ url } = await this.urls.create(team, order.userId, { context: 'communications', order_id: order.id }));
    } catch (error) {
      // 404: the user or order is gone; 422: no demographics on file, so no one to write to.
      if (error instanceof HttpException && error.getStatus() === HttpStatus.NOT_FOUND) throw new Skip('no_longer_applies');
      if (error instanceof HttpException && error.getStatus() === HttpStatus.UNPROCESSABLE_ENTITY) throw new Skip('no_contact');
      throw error;
    }
    await this.reminders.setLink(order.id, key, this.cipher.encryptJson(url));
    return url;
  }

  /** The link an earlier attempt made: sealed (it opens the portal for 28 days), or in plaintext from a release before sealing. */
  private keptLink(row: OrderReminderRow): string | null {
    return row.link_url_enc ? this.cipher.decryptJson<string>(row.link_url_enc) : row.link_url;
  }
}

function nullIfNotFound(error: unknown): null {
  if (error instanceof HttpException && error.getStatus() === HttpStatus.NOT_FOUND) return null;
  throw error;
}

/** An error text without e-mail addresses or phone numbers (international form, as patients give them). */
export function withoutContacts(text: string): string {
  return text.replace(/[^\s<>"'(),;:]+@[^\s<>"'(),;:]+/g, '<e-mail>').replace(/\+\d[\d ().-]{6,}\d/g, '<phone>');
}
