import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { ManagementPrincipal } from '../../auth/principal';
import { PhiCipher } from '../../common/crypto';
import { validationError } from '../../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../../config/config';
import type { ApiEnvironment, Region } from '../../tenancy/entities';
import { teamRestriction } from '../common/access';
import { amqpUriProblem, maskAmqpUri } from '../../events/amqp-uri';
import type { EtlDestinations } from '../../events/destinations';
import type { KeysetPosition } from '../../common/keyset-cursor';
import { type BulkResult, PAGE_SIZE } from '../common/params';
import { TeamLookup } from '../teams/team-lookup';
import type { EtlPipelineEntity } from './etl-pipeline.entity';
import type { EtlPipelineView, UpsertEtlPipelineDto } from './etl-pipelines.dto';
import { maskAzureConnectionString } from './etl-routing';
import { EtlPipelinesRepository } from './etl-pipelines.repository';

export interface EtlScope {
  environment: ApiEnvironment;
  region: Region;
}

/**
 * Event destinations per team, environment and region. Configurations are validated and stored
 * encrypted here; delivery to them is the event pipeline's job (see etl-routing for routing).
 */
@Injectable()
export class EtlPipelinesService {
  constructor(
    private readonly pipelines: EtlPipelinesRepository,
    private readonly teams: TeamLookup,
    private readonly cipher: PhiCipher,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  async list(caller: ManagementPrincipal, scope: EtlScope, teamId: string | undefined, after: KeysetPosition | undefined) {
    if (teamId) await this.teams.requireInOrg(caller.orgId, teamId);
    const page = await this.pipelines.listPage(
      { orgId: caller.orgId, ...scope },
      { teamId, onlyTeamIds: teamRestriction(caller) ?? undefined },
      after,
      PAGE_SIZE,
    );
    return { pipelines: page.items.map((pipeline) => this.toView(pipeline)), next_cursor: page.nextCursor };
  }

  /** Every team must be the caller's (checked by the controller), of the org, and in the region. */
  async upsert(orgId: string, scope: EtlScope, body: UpsertEtlPipelineDto) {
    this.checkRabbitMqUri(body.rabbitmq?.uri);
    const teamIds = [...new Set(body.team_ids)];
    for (const teamId of teamIds) {
      await this.teams.requireInRegion(orgId, teamId, scope.region, ['body', 'team_ids', body.team_ids.indexOf(teamId)]);
    }
    const destinations: EtlDestinations = {};
    if (body.rabbitmq) destinations.rabbitmq = body.rabbitmq;
    if (body.cloud_pubsub) destinations.cloud_pubsub = body.cloud_pubsub;
    if (body.azure_amqp) destinations.azure_amqp = body.azure_amqp;
    const prefixes = body.event_type_prefixes?.length ? [...new Set(body.event_type_prefixes)] : null;
    const saved = await this.pipelines.upsert(
      teamIds,
      scope,
      {
        eventTypePrefixes: prefixes,
        preferred: body.preferences.preferred,
        enabled: [...new Set(body.preferences.enabled)],
        destinationsEnc: this.cipher.encryptJson(destinations),
      },
      randomUUID,
    );
    return { pipelines: saved.map((pipeline) => this.toView(pipeline)), next_cursor: null };
  }

  /**
   * Deletes the pipelines of teams: `success`, or `not_found` for a team without one, a team of
   * another org, and a team of this org the caller is not bound to alike (a team-admin key learns
   * nothing of other teams). `failure` stays empty.
   */
  async delete(caller: ManagementPrincipal, scope: EtlScope, teamIds: string[]): Promise<BulkResult> {
    const unique = [...new Set(teamIds)];
    const allowed = await this.teams.actionable(caller, unique);
    const deleted = new Set(
      await this.pipelines.deleteForTeams(
        allowed.map((team) => team.id),
        scope,
      ),
    );
    return { success: unique.filter((id) => deleted.has(id)), failure: [], not_found: unique.filter((id) => !deleted.has(id)) };
  }

  /** Refuses a RabbitMQ URI aimed inside the deployment's network (see amqpUriProblem). */
  private checkRabbitMqUri(uri: string | undefined): void {
    const problem = uri === undefined ? null : amqpUriProblem(uri, this.config.events.allowPrivateWebhookUrls);
    if (problem) throw validationError(['body', 'rabbitmq', 'uri'], problem, maskAmqpUri(uri as string), 'url_not_allowed');
  }

  /** The stored configuration in clear, for the delivery side. */
  destinationsOf(pipeline: EtlPipelineEntity): EtlDestinations {
    return this.cipher.decryptJson<EtlDestinations>(pipeline.destinationsEnc);
  }

  private toView(pipeline: EtlPipelineEntity): EtlPipelineView {
    const destinations = this.destinationsOf(pipeline);
    return {
      id: pipeline.id,
      team_id: pipeline.teamId,
      environment: pipeline.environment,
      region: pipeline.region,
      event_type_prefixes: pipeline.eventTypePrefixes,
      preferences: { preferred: pipeline.preferred, enabled: pipeline.enabled },
      rabbitmq: destinations.rabbitmq ? { ...destinations.rabbitmq, uri: maskAmqpUri(destinations.rabbitmq.uri) } : null,
      cloud_pubsub: destinations.cloud_pubsub ?? null,
      azure_amqp: destinations.azure_amqp
        ? {
            ...destinations.azure_amqp,
            connection_string: maskAzureConnectionString(destinations.azure_amqp.connection_string),
            event_hub_matchers: destinations.azure_amqp.event_hub_matchers.map((m) => ({ ...m }) as Record<string, string>),
          }
        : null,
      created_at: pipeline.createdAt.toISOString(),
      updated_at: pipeline.updatedAt.toISOString(),
    };
  }
}
