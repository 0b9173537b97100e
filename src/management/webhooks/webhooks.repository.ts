import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ApiEnvironment } from '../../tenancy/entities';
import { type KeysetPosition, keysetPage, type Page } from '../../common/keyset-cursor';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

export interface WebhookScope {
  teamId: string;
  environment: ApiEnvironment;
}

/** Webhook endpoints of one team in one environment. */
@Injectable()
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private get repo() {
    return this.db.getRepository(WebhookEndpointEntity);
  }

  listPage(scope: WebhookScope, after: KeysetPosition | undefined, limit: number): Promise<Page<WebhookEndpointEntity>> {
    const query = this.repo
      .createQueryBuilder('webhook')
      .where('webhook.team_id = :teamId AND webhook.environment = :environment', { teamId: scope.teamId, environment: scope.environment });
    return keysetPage(query, { alias: 'webhook', createdColumn: 'created_at', createdProperty: 'createdAt', after, limit });
  }

  find(scope: WebhookScope, id: string): Promise<WebhookEndpointEntity | null> {
    return this.repo.findOneBy({ id, teamId: scope.teamId, environment: scope.environment });
  }

  save(endpoint: WebhookEndpointEntity): Promise<WebhookEndpointEntity> {
    return this.repo.save(endpoint);
  }

  async delete(scope: WebhookScope, id: string): Promise<boolean> {
    const result = await this.repo.delete({ id, teamId: scope.teamId, environment: scope.environment });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Makes `secretEnc` current; the replaced secret keeps signing until now + grace. One
   * statement, so concurrent rotations cannot lose a secret between read and write.
   */
  async rotateSecret(scope: WebhookScope, id: string, secretEnc: string, graceMs: number): Promise<boolean> {
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set({
        previousSecretEnc: () => 'secret_enc',
        previousSecretExpiresAt: () => `now() + (CAST(:graceMs AS bigint) * interval '1 millisecond')`,
        secretEnc,
        updatedAt: () => 'now()',
      })
      .where('id = :id AND team_id = :teamId AND environment = :environment', { id, teamId: scope.teamId, environment: scope.environment })
      .setParameter('graceMs', graceMs)
      .execute();
    return (result.affected ?? 0) > 0;
  }
}
