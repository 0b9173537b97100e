/**
 * The WHERE clauses the FHIR reads build: positional values, date bounds, keyset positions, and
 * the scope's live users.
 */
import type { TeamPrincipal } from '../auth/principal';
import type { DateBound } from './fhir-search';

/** A WHERE clause built with its positional values. */
export class Where {
  readonly clauses: string[] = [];
  constructor(readonly values: unknown[] = []) {}

  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  add(clause: string): this {
    this.clauses.push(clause);
    return this;
  }

  bounds(column: string, bounds: DateBound[]): this {
    for (const bound of bounds) this.add(`${column} ${bound.op} ${this.param(bound.at)}::timestamptz`);
    return this;
  }

  after(column: string, idColumn: string, idType: string, after: { at: string; id: string } | undefined, inclusive = false): this {
    if (after) {
      this.add(
        `(${column}, ${idColumn}) ${inclusive ? '>=' : '>'} (${this.param(after.at)}::timestamp AT TIME ZONE 'UTC', ${this.param(after.id)}::${idType})`,
      );
    }
    return this;
  }

  sql(): string {
    return this.clauses.join(' AND ');
  }
}

/** The live users of the scope, joined as `u` on `userColumn`. */
export function liveUsers(where: Where, scope: Pick<TeamPrincipal, 'teamId' | 'environment'>, userColumn: string): string {
  return `JOIN users u ON u.id = ${userColumn} AND u.team_id = ${where.param(scope.teamId)}::uuid AND u.environment = ${where.param(scope.environment)} AND u.deletion_requested_at IS NULL`;
}
