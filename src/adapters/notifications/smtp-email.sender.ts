import { createTransport, type Transporter } from 'nodemailer';
import type { DevOutbox, EmailMessage, EmailSender } from './notifications';

/** E-mail over SMTP (nodemailer; SMTP_URL, e.g. smtps://user:pass@mail.example.com:465). */
export class SmtpEmailSender implements EmailSender {
  readonly available = true;
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
    private readonly outbox: DevOutbox,
  ) {
    this.transport = createTransport(smtpUrl);
  }

  async send(message: EmailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.text });
    this.outbox.record({ channel: 'email', to: message.to, subject: message.subject, text: message.text });
  }

  close(): void {
    this.transport.close();
  }
}

/** Without SMTP_URL, outside production: e-mails go only to the development outbox. */
export class OutboxEmailSender implements EmailSender {
  constructor(private readonly outbox: DevOutbox) {}

  get available(): boolean {
    return this.outbox.enabled;
  }

  async send(message: EmailMessage): Promise<void> {
    if (!this.outbox.enabled) throw new Error('No SMTP_URL configured: e-mail cannot be sent.');
    this.outbox.record({ channel: 'email', to: message.to, subject: message.subject, text: message.text });
  }
}
