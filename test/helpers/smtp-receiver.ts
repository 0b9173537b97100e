import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on a random loopback port that keeps every message it receives, parsed. */
export interface SmtpReceiver {
  url: string;
  messages: ParsedMail[];
  /** The newest message to `to` (waits for it). */
  nextTo(to: string, after?: number, timeoutMs?: number): Promise<ParsedMail>;
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const messages: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async nextTo(to, after = 0, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages
          .slice(after)
          .reverse()
          .find((mail) => (Array.isArray(mail.to) ? mail.to : [mail.to]).some((address) => address?.text.includes(to)));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no e-mail to ${to} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The six-digit code in a portal verification message. */
export function codeIn(text: string | undefined): string {
  const match = /\b(\d{6})\b/.exec(text ?? '');
  if (!match) throw new Error(`no code in: ${text}`);
  return match[1];
}
