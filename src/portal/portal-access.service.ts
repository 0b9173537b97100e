import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EMAIL_SENDER, type EmailSender, type NotificationChannel, SMS_SENDER, type SmsSender } from '../adapters/notifications/notifications';
import { PhiCipher } from '../common/crypto';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import type { ApiEnvironment } from '../tenancy/entities';
import type { PatientDetails } from '../orders/orders.dto';
import { UserInfoService } from '../users/user-info.service';
import { OrdersRepository } from '../orders/orders.repository';
import { type PortalLinkRow, PortalLinksRepository, type PortalSessionRow, type SessionStart } from './portal-links.repository';
import { newOneTimeCode, PORTAL_TOKENS, type PortalTokens, SHORT_CODE_PATTERN } from './portal-tokens';

/** Why a link does not open; each has its own page and status. */
export type LinkProblem = 'unknown' | 'expired' | 'revoked' | 'used' | 'locked';

export class PortalLinkError extends Error {
  /** `teamId`: the link's team when the link is known (its page wears the team's brand). */
  constructor(
    readonly problem: LinkProblem,
    readonly teamId: string | null = null,
  ) {
    super(`portal link ${problem}`);
  }
}

/** A started session: the cookie to set and where the patient goes. */
export interface StartedSession {
  sessionCookie: string;
  /** Set when a one-time code was accepted: remembers this device for the link. */
  deviceCookie: string | null;
  link: PortalLinkRow;
}

/** A live session and the link it came from (its order deep link scopes what it may see). */
export interface LiveSession {
  session: PortalSessionRow;
  link: PortalLinkRow;
  csrf: string;
}

/** Where a one-time code can go, masked for the page. */
export interface CodeChannel {
  channel: NotificationChannel;
  masked: string;
}

export type CodeCheck = { outcome: 'accepted'; started: StartedSession } | { outcome: 'wrong'; attemptsLeft: number } | { outcome: 'expired' };

/**
 * Who may open the portal: launch links (signed, single use), short links (a remembered device,
 * or a one-time code sent by e-mail or SMS), and the sessions they start (a signed cookie naming
 * a portal_sessions row; every session is audited).
 */
@Injectable()
export class PortalAccessService {
  constructor(
    private readonly links: PortalLinksRepository,
    private readonly orders: OrdersRepository,
    private readonly userInfos: UserInfoService,
    private readonly cipher: PhiCipher,
    @Inject(PORTAL_TOKENS) private readonly tokens: PortalTokens,
    @Inject(EMAIL_SENDER) private readonly email: EmailSender,
    @Inject(SMS_SENDER) private readonly sms: SmsSender,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  /** Opens a launch link once. */
  async openLaunch(token: string): Promise<StartedSession> {
    const parts = this.tokens.verify('launch', token, 2);
    if (!parts) throw new PortalLinkError('unknown');
    const link = await this.links.byId(parts[0]);
    if (!link || link.context !== 'launch') throw new PortalLinkError('unknown');
    this.checkOpen(link);
    if (link.used_at || !(await this.links.useOnce(link.id))) throw new PortalLinkError('used', link.team_id);
    return this.start(link, 'launch', null);
  }

  /** A short link: a session at once on a remembered device, otherwise the code channels to offer. */
  async openShortLink(code: string, deviceCookie: string | undefined): Promise<{ started: StartedSession } | { link: PortalLinkRow; channels: CodeChannel[] }> {
    const link = await this.shortLink(code);
    const device = this.tokens.verify('device', deviceCookie, 3);
    if (device && device[0] === link.id && Number(device[2]) * 1000 > Date.now()) return { started: await this.start(link, 'device', null) };
    return { link, channels: await this.channels(link) };
  }

  /** Sends a new one-time code; false when the channel is not available for this patient. */
  async sendCode(code: string, channel: NotificationChannel, brandName: string): Promise<boolean> {
    const link = await this.shortLink(code);
    const contact = (await this.contacts(link))[channel];
    if (!contact) return false;
    const otp = newOneTimeCode();
    const ttlMinutes = Math.max(1, Math.round(this.config.portal.codeTtlMs / 60_000));
    const stored = await this.links.storeCode(link.id, this.tokens.hashCode(link.id, otp), channel, new Date(Date.now() + this.config.portal.codeTtlMs), {
      maxSends: this.config.portal.codeMaxSends,
      maxFailures: this.config.portal.codeMaxFailures,
    });
    if (!stored) throw new PortalLinkError('locked', link.team_id);
    const text = `Your ${brandName} verification code is ${otp}. It expires in ${ttlMinutes} minutes. If you did not ask for it, ignore this message.`;
    if (channel === 'email') await this.email.send({ to: contact, subject: `${brandName}: your verification code`, text });
    else await this.sms.send({ to: contact, text });
    return true;
  }

  /** Checks a one-time code; every wrong code counts against the link, for its whole life. */
  async verifyCode(code: string, entered: string): Promise<CodeCheck> {
    const link = await this.shortLink(code);
    if (!link.otp_hash || !link.otp_expires_at || link.otp_expires_at.getTime() <= Date.now()) return { outcome: 'expired' };
    if (!/^\d{6}$/.test(entered) || !this.tokens.codeMatches(link.id, entered, link.otp_hash)) {
      const failures = await this.links.recordFailure(link.id);
      const attemptsLeft = this.config.portal.codeMaxFailures - failures;
      if (attemptsLeft <= 0) throw new PortalLinkError('locked', link.team_id);
      return { outcome: 'wrong', attemptsLeft };
    }
    await this.links.clearCode(link.id);
    const deviceExpires = Math.floor(Math.min(Date.now() + this.config.portal.deviceTtlMs, link.expires_at.getTime()) / 1000);
    return { outcome: 'accepted', started: await this.start(link, 'code', this.tokens.sign('device', [link.id, randomUUID(), deviceExpires])) };
  }

  /** The session a cookie names, while it lasts and its link is not revoked. */
  async session(cookie: string | undefined): Promise<LiveSession | null> {
    const parts = this.tokens.verify('session', cookie, 1);
    if (!parts) return null;
    const session = await this.links.session(parts[0]);
    if (!session || session.ended_at || session.expires_at.getTime() <= Date.now()) return null;
    const link = await this.links.byId(session.link_id);
    if (!link || link.revoked_at) return null;
    return { session, link, csrf: this.tokens.sign('csrf', [session.id]) };
  }

  csrfMatches(live: LiveSession, token: unknown): boolean {
    const parts = this.tokens.verify('csrf', token, 1);
    return parts !== null && parts[0] === live.session.id;
  }

  async endSession(live: LiveSession): Promise<void> {
    await this.links.endSession(live.session.id);
  }

  /** Seconds a device cookie and a session cookie should live (for Max-Age). */
  cookieLifetimes(link: PortalLinkRow): { sessionSeconds: number; deviceSeconds: number } {
    const untilLinkExpires = link.expires_at.getTime() - Date.now();
    return {
      sessionSeconds: Math.floor(this.config.portal.sessionTtlMs / 1000),
      deviceSeconds: Math.max(0, Math.floor(Math.min(this.config.portal.deviceTtlMs, untilLinkExpires) / 1000)),
    };
  }

  // -------------------------------------------------------------------------------------------

  private async shortLink(code: string): Promise<PortalLinkRow> {
    const link = SHORT_CODE_PATTERN.test(code) ? await this.links.byCode(this.tokens.codeDigests(code)) : null;
    if (!link) throw new PortalLinkError('unknown');
    this.checkOpen(link);
    if (link.otp_failures >= this.config.portal.codeMaxFailures) throw new PortalLinkError('locked', link.team_id);
    return link;
  }

  private checkOpen(link: PortalLinkRow): void {
    if (link.revoked_at) throw new PortalLinkError('revoked', link.team_id);
    if (link.expires_at.getTime() <= Date.now()) throw new PortalLinkError('expired', link.team_id);
  }

  private async start(link: PortalLinkRow, by: SessionStart, deviceCookie: string | null): Promise<StartedSession> {
    const id = randomUUID();
    await this.links.startSession({
      id,
      link_id: link.id,
      team_id: link.team_id,
      user_id: link.user_id,
      began_by: by,
      expires_at: new Date(Date.now() + this.config.portal.sessionTtlMs),
    });
    return { sessionCookie: this.tokens.sign('session', [id]), deviceCookie, link };
  }

  private async channels(link: PortalLinkRow): Promise<CodeChannel[]> {
    const contacts = await this.contacts(link);
    const channels: CodeChannel[] = [];
    if (contacts.email) channels.push({ channel: 'email', masked: maskEmail(contacts.email) });
    if (contacts.sms) channels.push({ channel: 'sms', masked: maskPhone(contacts.sms) });
    return channels;
  }

  private contacts(link: PortalLinkRow): Promise<Partial<Record<NotificationChannel, string>>> {
    return this.contactsOf({ teamId: link.team_id, environment: link.environment }, link.user_id);
  }

  /**
   * The patient's e-mail and phone, where a sender can reach them: where one-time codes go, and
   * reminders (src/reminders). From the user's info when the team gave it (`PATCH
   * /v2/user/{id}/info`: the patient as they are now), else from their newest order with patient
   * details.
   */
  async contactsOf(scope: { teamId: string; environment: ApiEnvironment }, userId: string): Promise<Partial<Record<NotificationChannel, string>>> {
    const details = (await this.userInfos.onFile(userId)) ?? (await this.newestPatientDetails(scope, userId));
    if (!details) return {};
    return {
      ...(this.email.available && details.email ? { email: details.email } : {}),
      ...(this.sms.available && details.phone_number ? { sms: details.phone_number } : {}),
    };
  }

  private async newestPatientDetails(scope: { teamId: string; environment: ApiEnvironment }, userId: string): Promise<PatientDetails | null> {
    const orders = await this.orders.ordersOfUser(scope, userId);
    const sealed = orders.find((order) => order.patientDetailsEnc !== null)?.patientDetailsEnc;
    return sealed ? this.cipher.decryptJson<PatientDetails>(sealed) : null;
  }
}

/** `m•••@example.com`: enough to recognise, not enough to learn. */
export function maskEmail(email: string): string {
  const [local, domain] = email.split('@');
  return `${local.slice(0, 1)}•••@${domain ?? ''}`;
}

/** `•••• 0123`. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  return `•••• ${digits.slice(-4)}`;
}
