import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { PhiCipher } from '../../common/crypto';
import { notFound, validationError } from '../../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../../config/config';
import type { KeysetPosition } from '../../common/keyset-cursor';
import { TeamLookup } from '../teams/team-lookup';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { generateWebhookSecret, PREVIOUS_SECRET_GRACE_MS } from './webhook-secrets';
import { webhookUrlProblem } from '../../events/webhook-url';
import type { CreateWebhookDto, PatchWebhookDto, WebhookHeadersDto, WebhookView } from './webhooks.dto';
import { type WebhookScope, WebhooksRepository } from './webhooks.repository';

/** What a header value is shown as when it is sensitive. */
export const MASKED_HEADER_VALUE = '********';

/** Header names treated as sensitive even when not marked so. */
const ALWAYS_SENSITIVE = /^(authorization|proxy-authorization|cookie)$|secret|token|password|api[-_]?key|signature/i;

export interface WebhookTarget extends WebhookScope {
  orgId: string;
}

/**
 * Webhook endpoint records of a team (delivery is the webhooks worker's job): URL rules,
 * encrypted secret with rotation grace, encrypted custom headers with masking.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly teams: TeamLookup,
    private readonly cipher: PhiCipher,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  async list(target: WebhookTarget, limit: number, after: KeysetPosition | undefined) {
    await this.teams.requireInOrg(target.orgId, target.teamId);
    const page = await this.webhooks.listPage(target, after, limit);
    return { data: page.items.map(toView), next_cursor: page.nextCursor };
  }

  async create(target: WebhookTarget, body: CreateWebhookDto): Promise<WebhookView> {
    await this.teams.requireInOrg(target.orgId, target.teamId);
    this.checkUrl(body.url);
    const endpoint = Object.assign(new WebhookEndpointEntity(), {
      id: randomUUID(),
      teamId: target.teamId,
      environment: target.environment,
      url: body.url,
      description: body.description,
      rateLimit: body.rate_limit ?? null,
      disabled: body.disabled,
      filterTypes: normaliseFilter(body.filter_types),
      secretEnc: this.cipher.encrypt(body.secret ?? generateWebhookSecret()),
      previousSecretEnc: null,
      previousSecretExpiresAt: null,
      headersEnc: null,
      sensitiveHeaders: [],
    });
    return toView(await this.webhooks.save(endpoint));
  }

  async get(target: WebhookTarget, id: string): Promise<WebhookView> {
    return toView(await this.require(target, id));
  }

  async patch(target: WebhookTarget, id: string, body: PatchWebhookDto): Promise<WebhookView> {
    const endpoint = await this.require(target, id);
    if (body.url !== undefined) {
      this.checkUrl(body.url);
      endpoint.url = body.url;
    }
    if (body.description !== undefined) endpoint.description = body.description;
    if (body.rate_limit !== undefined) endpoint.rateLimit = body.rate_limit;
    if (body.disabled !== undefined) endpoint.disabled = body.disabled;
    if (body.filter_types !== undefined) endpoint.filterTypes = normaliseFilter(body.filter_types);
    return toView(await this.webhooks.save(endpoint));
  }

  async delete(target: WebhookTarget, id: string): Promise<void> {
    await this.teams.requireInOrg(target.orgId, target.teamId);
    if (!(await this.webhooks.delete(target, id))) throw notFound('Webhook');
  }

  /** Sensitive header values come back masked. */
  async getHeaders(target: WebhookTarget, id: string) {
    const endpoint = await this.require(target, id);
    const stored = endpoint.headersEnc ? this.cipher.decryptJson<Record<string, string>>(endpoint.headersEnc) : {};
    const sensitive = new Set(endpoint.sensitiveHeaders);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(stored)) {
      headers[name] = sensitive.has(name.toLowerCase()) ? MASKED_HEADER_VALUE : value;
    }
    return { headers, sensitive: Object.keys(stored).filter((name) => sensitive.has(name.toLowerCase())) };
  }

  /** Replaces every custom header. */
  async putHeaders(target: WebhookTarget, id: string, body: WebhookHeadersDto): Promise<void> {
    const endpoint = await this.require(target, id);
    const names = Object.keys(body.headers);
    const lower = names.map((name) => name.toLowerCase());
    if (new Set(lower).size !== lower.length) {
      throw validationError(['body', 'headers'], 'Header names must be unique regardless of case.', body.headers);
    }
    const unknown = body.sensitive.findIndex((name) => !lower.includes(name.toLowerCase()));
    if (unknown >= 0) {
      throw validationError(['body', 'sensitive', unknown], 'A sensitive header must be one of the headers given.', body.sensitive[unknown]);
    }
    const marked = new Set(body.sensitive.map((name) => name.toLowerCase()));
    endpoint.headersEnc = names.length ? this.cipher.encryptJson(body.headers) : null;
    endpoint.sensitiveHeaders = lower.filter((name) => marked.has(name) || ALWAYS_SENSITIVE.test(name));
    await this.webhooks.save(endpoint);
  }

  async getSecret(target: WebhookTarget, id: string): Promise<{ key: string }> {
    const endpoint = await this.require(target, id);
    return { key: this.cipher.decrypt(endpoint.secretEnc) };
  }

  /** The new secret signs from now on; the old one keeps signing beside it for 24 hours. */
  async rotateSecret(target: WebhookTarget, id: string, key: string | undefined): Promise<void> {
    await this.teams.requireInOrg(target.orgId, target.teamId);
    const rotated = await this.webhooks.rotateSecret(target, id, this.cipher.encrypt(key ?? generateWebhookSecret()), PREVIOUS_SECRET_GRACE_MS);
    if (!rotated) throw notFound('Webhook');
  }

  private async require(target: WebhookTarget, id: string): Promise<WebhookEndpointEntity> {
    await this.teams.requireInOrg(target.orgId, target.teamId);
    const endpoint = await this.webhooks.find(target, id);
    if (!endpoint) throw notFound('Webhook');
    return endpoint;
  }

  private checkUrl(url: string): void {
    const problem = webhookUrlProblem(url, this.config.events.allowPrivateWebhookUrls);
    if (problem) throw validationError(['body', 'url'], problem, url, 'url_not_allowed');
  }
}

function normaliseFilter(types: string[] | null | undefined): string[] | null {
  return types && types.length ? [...new Set(types)] : null;
}

function toView(endpoint: WebhookEndpointEntity): WebhookView {
  return {
    id: endpoint.id,
    description: endpoint.description,
    rate_limit: endpoint.rateLimit,
    url: endpoint.url,
    disabled: endpoint.disabled,
    filter_types: endpoint.filterTypes,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}
