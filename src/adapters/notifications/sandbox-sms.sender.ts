import type { DevOutbox, SmsMessage, SmsSender } from './notifications';

/**
 * The SMS sandbox: messages land in the development outbox and nowhere else. labflow has no SMS
 * provider yet, so in production SMS is not offered (`available` false); a real provider
 * implements SmsSender and is bound to SMS_SENDER in NotificationsModule.
 */
export class SandboxSmsSender implements SmsSender {
  constructor(private readonly outbox: DevOutbox) {}

  get available(): boolean {
    return this.outbox.enabled;
  }

  async send(message: SmsMessage): Promise<void> {
    if (!this.outbox.enabled) throw new Error('The SMS sandbox does not send in production.');
    this.outbox.record({ channel: 'sms', to: message.to, subject: null, text: message.text });
  }
}
