import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { ApiEnvironment } from './entities';

/** One explicit priority: for `dataType`, `provider` ranks `priority` (1 wins over 2). */
export interface SourcePriority {
  dataType: string;
  provider: string;
  priority: number;
}

/** The SQL of `team_source_priorities`: the team's ranking of providers per data type, per environment. */
@Injectable()
export class SourcePrioritiesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async list(teamId: string, environment: ApiEnvironment, dataType?: string): Promise<SourcePriority[]> {
    return this.db.query(
      `SELECT data_type AS "dataType", provider, priority FROM team_source_priorities
        WHERE team_id = $1 AND environment = $2 AND ($3::text IS NULL OR data_type = $3)
        ORDER BY data_type, priority, provider`,
      [teamId, environment, dataType ?? null],
    );
  }

  /** Sets (priority) or clears (null) each entry, in one transaction. */
  async apply(teamId: string, environment: ApiEnvironment, entries: Array<{ dataType: string; provider: string; priority: number | null }>): Promise<void> {
    await this.db.transaction(async (manager) => {
      for (const entry of entries) {
        if (entry.priority === null) {
          await manager.query(`DELETE FROM team_source_priorities WHERE team_id = $1 AND environment = $2 AND data_type = $3 AND provider = $4`, [
            teamId,
            environment,
            entry.dataType,
            entry.provider,
          ]);
        } else {
          await manager.query(
            `INSERT INTO team_source_priorities (team_id, environment, data_type, provider, priority) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (team_id, environment, data_type, provider) DO UPDATE SET priority = EXCLUDED.priority`,
            [teamId, environment, entry.dataType, entry.provider, entry.priority],
          );
        }
      }
    });
  }
}
