import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { LABFLOW_CONFIG, type LabflowConfig } from '../../config/config';
import { DevOutbox, EMAIL_SENDER, type EmailSender, SMS_SENDER } from './notifications';
import { SandboxSmsSender } from './sandbox-sms.sender';
import { OutboxEmailSender, SmtpEmailSender } from './smtp-email.sender';

/** E-mail (SMTP when SMTP_URL is set) and SMS (the sandbox) senders, and the development outbox. */
@Module({
  providers: [
    { provide: DevOutbox, inject: [LABFLOW_CONFIG], useFactory: (config: LabflowConfig) => new DevOutbox(config.env !== 'production') },
    {
      provide: EMAIL_SENDER,
      inject: [LABFLOW_CONFIG, DevOutbox],
      useFactory: (config: LabflowConfig, outbox: DevOutbox): EmailSender =>
        config.notifications.smtpUrl ? new SmtpEmailSender(config.notifications.smtpUrl, config.notifications.from, outbox) : new OutboxEmailSender(outbox),
    },
    { provide: SMS_SENDER, inject: [DevOutbox], useFactory: (outbox: DevOutbox) => new SandboxSmsSender(outbox) },
  ],
  exports: [DevOutbox, EMAIL_SENDER, SMS_SENDER],
})
export class NotificationsModule implements OnApplicationShutdown {
  constructor(@Inject(EMAIL_SENDER) private readonly email: EmailSender) {}

  onApplicationShutdown(): void {
    if (this.email instanceof SmtpEmailSender) this.email.close();
  }
}
