/**
 * Messages to patients (one-time codes of the patient portal; reminders later): an e-mail sender
 * and an SMS sender behind interfaces and DI tokens, as the courier and lab adapters are.
 * Each says whether it can deliver at all (`available`), so the portal offers only channels
 * that work. Every message sent outside production is also kept in the DevOutbox.
 */
export type NotificationChannel = 'email' | 'sms';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface SmsMessage {
  to: string;
  text: string;
}

export interface EmailSender {
  readonly available: boolean;
  send(message: EmailMessage): Promise<void>;
}

export interface SmsSender {
  readonly available: boolean;
  send(message: SmsMessage): Promise<void>;
}

export const EMAIL_SENDER = Symbol('EMAIL_SENDER');
export const SMS_SENDER = Symbol('SMS_SENDER');

export interface OutboxEntry {
  channel: NotificationChannel;
  to: string;
  subject: string | null;
  text: string;
  sent_at: string;
}

/**
 * The last messages sent by this process, newest first, outside production only (the
 * development outbox page lists them; the SMS sandbox delivers nowhere else). Bounded.
 */
export class DevOutbox {
  private readonly entries: OutboxEntry[] = [];

  constructor(
    readonly enabled: boolean,
    private readonly max = 100,
  ) {}

  record(entry: Omit<OutboxEntry, 'sent_at'>): void {
    if (!this.enabled) return;
    this.entries.unshift({ ...entry, sent_at: new Date().toISOString() });
    this.entries.length = Math.min(this.entries.length, this.max);
  }

  list(): readonly OutboxEntry[] {
    return this.entries;
  }
}
