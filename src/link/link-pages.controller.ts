import { Controller, Get, HttpException, Inject, Post, Req, Res } from '@nestjs/common';
import { Param, Query } from '../common/request-params';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/principal';
import { LimitedPerAddress } from '../rate-limits/rate-limit-family';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { NEUTRAL_BRAND, type PortalBrand } from '../portal/portal-brand';
import { PortalBrandService } from '../portal/portal-brand.service';
import { field, seeOther, sendHtml } from '../portal/portal-http';
import { connectedPage, consentPage, donePage, linkPage, mfaPage } from './link-pages';
import { providerInfo, providerOf } from '../health-data/providers';
import { redirectAfter } from './link-views';
import { EMAIL, LinkProviderParams, OauthCallbackQuery } from './link.dto';
import { LinkService } from './link.service';
import { SANDBOX_OAUTH_GRANTED, SANDBOX_OAUTH_PARTIAL } from './sandbox-provider-auth';

type ProviderLinkView = Awaited<ReturnType<LinkService['connectPassword']>>;

/**
 * The hosted Link page (link_web_url) and the browser's side of an OAuth grant: plain HTML
 * forms over the same LinkService the token-authenticated API routes call.
 */
@ApiExcludeController()
@Public()
@LimitedPerAddress('link')
@Controller()
export class LinkPagesController {
  constructor(
    private readonly link: LinkService,
    private readonly brands: PortalBrandService,
    @Inject(LABFLOW_CONFIG) private readonly config: Pick<LabflowConfig, 'api'>,
  ) {}

  @Get('link')
  async home(@Query('token') token: unknown, @Res() reply: FastifyReply) {
    await this.render(reply, typeof token === 'string' ? token : '', 200, null);
  }

  @Get('link/oauth/:provider')
  async oauth(@Param() params: LinkProviderParams, @Query('token') token: unknown, @Res() reply: FastifyReply) {
    const linkToken = typeof token === 'string' ? token : '';
    try {
      const source = await this.link.beginOauth(linkToken, params.provider);
      seeOther(reply, source.oauth_url);
    } catch (error) {
      await this.render(reply, linkToken, statusOf(error), detailOf(error));
    }
  }

  @Post('link/password/:provider')
  async password(@Param() params: LinkProviderParams, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const token = field(request.body, 'token');
    const credentials = { username: field(request.body, 'username'), password: field(request.body, 'password') };
    if (!credentials.username || !credentials.password) return this.render(reply, token, 422, 'Enter your username and password.');
    await this.step(reply, token, params.provider, () => this.link.connectPassword(token, params.provider, credentials));
  }

  @Post('link/password/:provider/mfa')
  async mfa(@Param() params: LinkProviderParams, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const token = field(request.body, 'token');
    await this.step(reply, token, params.provider, () => this.link.completeMfa(token, params.provider, field(request.body, 'mfa_code').trim()));
  }

  @Post('link/email/:provider')
  async email(@Param() params: LinkProviderParams, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const token = field(request.body, 'token');
    const email = field(request.body, 'email').trim();
    if (!EMAIL.safeParse(email).success) return this.render(reply, token, 422, 'Enter the e-mail address of your account.');
    await this.step(reply, token, params.provider, () => this.link.connectEmail(token, params.provider, email));
  }

  /** The sandbox's stand-in for a provider's consent screen: its answers go back to labflow's callback. */
  @Get('link/sandbox/oauth/:provider')
  consent(@Param() params: LinkProviderParams, @Query('state') state: unknown, @Res() reply: FastifyReply) {
    const callback = new URL(`/v2/link/connect/${params.provider}`, this.config.api.publicUrl);
    const answer = (extra: Record<string, string>) => {
      const url = new URL(callback);
      url.searchParams.set('state', typeof state === 'string' ? state : '');
      for (const [key, value] of Object.entries(extra)) url.searchParams.set(key, value);
      return url.pathname + url.search;
    };
    const { name } = providerOf(params.provider);
    sendHtml(
      reply,
      200,
      consentPage(NEUTRAL_BRAND, {
        name,
        allow: answer({ code: `${SANDBOX_OAUTH_GRANTED}-${Date.now()}` }),
        partial: answer({ code: `${SANDBOX_OAUTH_PARTIAL}-${Date.now()}` }),
        deny: answer({ error: 'access_denied' }),
      }),
      NEUTRAL_BRAND,
    );
  }

  /** The provider's redirect back to labflow (its OAuth redirect URI). */
  @Get('v2/link/connect/:provider')
  async callback(@Param() params: LinkProviderParams, @Query() query: OauthCallbackQuery, @Res() reply: FastifyReply) {
    const outcome = await this.link.completeOauth(params.provider, query);
    if (outcome.redirectTo) return seeOther(reply, outcome.redirectTo);
    const brand = await this.brandOf(outcome.teamId);
    const { name } = providerOf(outcome.provider);
    if (outcome.state === 'success') return sendHtml(reply, 200, connectedPage(brand, name), brand);
    sendHtml(
      reply,
      400,
      donePage(brand, { heading: `${name} was not connected`, message: outcome.error ?? 'The sign-in did not finish.', alert: true }),
      brand,
    );
  }

  /** A sign-in step's answer, as the next page: done (or the team's redirect), the code form, or the providers again with why. */
  private async step(reply: FastifyReply, token: string, provider: string, run: () => Promise<ProviderLinkView>) {
    let view: ProviderLinkView;
    try {
      view = await run();
    } catch (error) {
      return this.render(reply, token, statusOf(error), detailOf(error));
    }
    if (view.redirect_url) return seeOther(reply, view.redirect_url);
    const { row } = await this.link.forPage(token);
    const brand = await this.brandOf(row?.teamId ?? null);
    const { name } = providerOf(provider);
    if (view.state === 'success') return sendHtml(reply, 200, connectedPage(brand, name), brand);
    if (view.state === 'pending_provider_mfa' && view.provider_mfa) {
      const page = mfaPage(brand, { token, slug: provider, name, method: view.provider_mfa.method ?? 'sms', hint: view.provider_mfa.hint ?? '' });
      return sendHtml(reply, 200, page, brand, formTargetsOf(row?.redirectUrl ?? null));
    }
    await this.render(reply, token, 422, view.error ?? `${name} was not connected.`);
  }

  /** The providers the token offers (with an error above them), or why the token cannot be used. */
  private async render(reply: FastifyReply, token: string, status: number, error: string | null) {
    const { row, refusal, offered } = await this.link.forPage(token);
    const brand = await this.brandOf(row?.teamId ?? null);
    if (!row || refusal) {
      const heading = row?.state === 'success' ? 'Already connected' : 'This link cannot be used';
      return sendHtml(reply, row ? 410 : 404, donePage(brand, { heading, message: refusal ?? 'This link is not valid.', alert: true }), brand);
    }
    const providers = offered.map(([slug, authType]) => {
      const info = providerInfo(slug);
      return { slug, authType, name: info?.name ?? slug, description: info?.description ?? '' };
    });
    // With on_close: redirect, closing Link takes the user back to the team as a cancelled flow.
    const closeUrl =
      row.onClose === 'redirect'
        ? redirectAfter(row, { state: 'error', provider: row.chosenProvider, errorType: 'user_cancelled', error: 'The user closed Link.' })
        : null;
    const page = linkPage(brand, { token, providers, sandbox: row.environment === 'sandbox', closeUrl, error });
    sendHtml(reply, status, page, brand, formTargetsOf(row.redirectUrl));
  }

  private async brandOf(teamId: string | null): Promise<PortalBrand> {
    return teamId ? this.brands.of(teamId) : NEUTRAL_BRAND;
  }
}

/** The team's redirect_url origin: where a form's answer may send the browser (sendHtml's form-action). */
function formTargetsOf(redirectUrl: string | null): string[] {
  return redirectUrl ? [new URL(redirectUrl).origin] : [];
}

function statusOf(error: unknown): number {
  if (error instanceof HttpException) return error.getStatus();
  throw error;
}

function detailOf(error: unknown): string {
  const response = error instanceof HttpException ? (error.getResponse() as { detail?: unknown }) : null;
  return typeof response?.detail === 'string' ? response.detail : 'Something went wrong. Try again.';
}
