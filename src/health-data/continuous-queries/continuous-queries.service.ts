import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { TeamPrincipal } from '../../auth/principal';
import { conflict, notFound, RequestValidationError, validationError } from '../../common/errors';
import type { KeysetPosition } from '../../common/keyset-cursor';
import { UsersRepository } from '../../users/users.repository';
import { type AggregationPlan, MAX_RESULT_ROWS, type PlanSource } from '../aggregation-plan';
import type { AggregationQuery, Period } from '../aggregation.dto';
import { AggregationService, windowOf } from '../aggregation.service';
import { type ContinuousQueryRow, ContinuousQueriesRepository, dataSourceKey, type QueryOwner, type TaskRow } from './continuous-queries.repository';

/** A continuous query as its owner defines it. */
export interface ContinuousQueryDefinition {
  slug: string;
  query: AggregationQuery;
  past: Period;
}

/** Which writes make a query due: those of the table its plan reads. */
function sourceKeyOf(source: PlanSource): string {
  return source.table === 'timeseries' ? dataSourceKey('timeseries', source.resource) : dataSourceKey('summary', source.table);
}

/**
 * Continuous queries (Junction's `aggregate/v1/.../continuous_query/...`): a team's saved
 * aggregation query, evaluated again for a user whenever the data it reads changes (the
 * continuous-queries worker role: ContinuousQueryRunner), with `continuous_query.result_table.changed`
 * sent when the answer differs from the last one. Teams define them through the management API;
 * the API reads the result table and the evaluations (task history).
 *
 * The window of a query is `past` up to the end of the current UTC day at the time it is
 * evaluated, so a result table is a rolling one ("the last 7 days").
 */
@Injectable()
export class ContinuousQueriesService {
  constructor(
    private readonly repository: ContinuousQueriesRepository,
    private readonly aggregation: AggregationService,
    private readonly users: UsersRepository,
  ) {}

  // --- definitions (management API) -------------------------------------------------------

  async define(owner: QueryOwner, definition: ContinuousQueryDefinition) {
    const plan = this.aggregation.plan(definition.query, ['body', 'query']);
    const row = { id: randomUUID(), team_id: owner.teamId, environment: owner.environment, ...definition, source: sourceKeyOf(plan.source) };
    if (!(await this.repository.insert(row))) throw conflict(`A continuous query with the slug ${definition.slug} exists already.`);
    return toView(await this.require(owner, row.id));
  }

  async list(owner: QueryOwner) {
    return { data: (await this.repository.list(owner)).map(toView) };
  }

  async get(owner: QueryOwner, idOrSlug: string) {
    return toView(await this.require(owner, idOrSlug));
  }

  /** Replaces what the patch names; a changed query is checked as on creation. */
  async update(owner: QueryOwner, id: string, patch: Partial<ContinuousQueryDefinition>) {
    const current = await this.require(owner, id);
    const query = patch.query ?? (current.query as AggregationQuery);
    const plan = this.aggregation.plan(query, ['body', 'query']);
    const next = { slug: patch.slug ?? current.slug, query, past: patch.past ?? current.past, source: sourceKeyOf(plan.source) };
    const outcome = await this.repository.update(owner, current.id, next);
    if (outcome === 'missing') throw notFound('Continuous query');
    if (outcome === 'slug taken') throw conflict(`A continuous query with the slug ${next.slug} exists already.`);
    return toView(await this.require(owner, current.id));
  }

  /** Deletes the query with its tasks and results. */
  async remove(owner: QueryOwner, id: string): Promise<void> {
    const current = await this.require(owner, id);
    if (!(await this.repository.delete(owner, current.id))) throw notFound('Continuous query');
  }

  // --- reads (API) ------------------------------------------------------------------------

  /** The query's table for the user now (the same evaluation a task makes). */
  async resultTable(team: TeamPrincipal, userId: string, idOrSlug: string): Promise<{ table: Record<string, unknown[]> }> {
    const query = await this.requireForUser(team, userId, idOrSlug);
    const outcome = await this.evaluate(query, userId);
    if ('error' in outcome) throw validationError(['path', 'query_id_or_slug'], outcome.error);
    return { table: outcome.table };
  }

  /** The user's evaluations of the query, newest first. */
  async taskHistory(team: TeamPrincipal, userId: string, idOrSlug: string, before: KeysetPosition | undefined, limit: number) {
    const query = await this.requireForUser(team, userId, idOrSlug);
    const page = await this.repository.history(query.id, userId, before, limit);
    return { data: page.items.map(taskView), next_cursor: page.nextCursor };
  }

  /**
   * Evaluates a query for a user over its window ending with today (UTC). What the query cannot
   * answer is an `error` (a business outcome the task records, not a failure to retry).
   */
  async evaluate(query: ContinuousQueryRow, userId: string, now = new Date()): Promise<{ table: Record<string, unknown[]> } | { error: string }> {
    let plan: AggregationPlan;
    try {
      plan = this.aggregation.plan(query.query as AggregationQuery, ['query']);
    } catch (error) {
      if (!(error instanceof RequestValidationError)) throw error;
      return { error: `The query can no longer be answered: ${error.issues.map((issue) => issue.msg).join('; ')}` };
    }
    const window = windowOf(now.toISOString().slice(0, 10), query.past as Period);
    const table = await this.aggregation.evaluate(userId, plan, window);
    if (!table) return { error: `The query answers more than ${MAX_RESULT_ROWS} rows: shorten its window (past) or use coarser buckets.` };
    // As stored and sent: JSON values only (times as ISO strings).
    return { table: JSON.parse(JSON.stringify(table)) as Record<string, unknown[]> };
  }

  private async require(owner: QueryOwner, idOrSlug: string): Promise<ContinuousQueryRow> {
    const row = await this.repository.find(owner, idOrSlug);
    if (!row) throw notFound('Continuous query');
    return row;
  }

  private async requireForUser(team: TeamPrincipal, userId: string, idOrSlug: string): Promise<ContinuousQueryRow> {
    if (!(await this.users.findLive(team, userId))) throw notFound('User');
    return this.require({ teamId: team.teamId, environment: team.environment }, idOrSlug);
  }
}

function toView(row: ContinuousQueryRow) {
  return {
    id: row.id,
    slug: row.slug,
    query: row.query,
    past: row.past,
    reads: row.source,
    team_id: row.team_id,
    environment: row.environment,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** Junction's ContinuousQueryTaskHistoryEntry. */
function taskView(row: TaskRow) {
  return {
    query_id: row.query_id,
    user_id: row.user_id,
    status: row.status,
    scheduled_at: new Date(row.scheduled_at).toISOString(),
    started_at: row.started_at ? new Date(row.started_at).toISOString() : null,
    ended_at: row.ended_at ? new Date(row.ended_at).toISOString() : null,
    error_details: row.error_details,
  };
}
