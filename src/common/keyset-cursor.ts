import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { z } from 'zod';

/**
 * Opaque keyset cursors over `(created, id)`. The cursor holds the last row's creation time at
 * full Postgres precision (microseconds, UTC) and its id, base64url-encoded. A page is "rows
 * strictly after that position", so rows inserted while a client pages land either after the
 * position (seen later) or before it (not seen), and rows that existed when paging began are each
 * returned exactly once.
 */
export interface KeysetPosition {
  /** `YYYY-MM-DDTHH:MM:SS.ffffff`, UTC. */
  at: string;
  id: string;
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): KeysetPosition | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(decoded) || decoded.length !== 2) return null;
    const [at, id] = decoded as unknown[];
    if (typeof at !== 'string' || typeof id !== 'string' || !AT.test(at) || !UUID.test(id)) return null;
    if (Number.isNaN(Date.parse(`${at.slice(0, 23)}Z`))) return null;
    return { at, id };
  } catch {
    return null;
  }
}

/** The `next_cursor` query parameter: decoded here, so a bad cursor is a 422 on that field. */
export const nextCursorParam = z
  .string()
  .max(512)
  .transform((value, ctx) => {
    const position = decodeCursor(value);
    if (!position) {
      ctx.addIssue({ code: 'custom', message: 'Invalid cursor: pass next_cursor exactly as a previous page returned it.', input: value });
      return z.NEVER;
    }
    return position;
  })
  .optional()
  .describe('Opaque cursor from the previous page; omit for the first page.');

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * Runs `query` as one keyset page: ordered by (created column, id), strictly after `after`,
 * at most `limit` rows. `alias` is the query's main alias; `createdColumn`/`createdProperty` name
 * the creation time as column and as entity property.
 */
export async function keysetPage<T extends ObjectLiteral & { id: string }>(
  query: SelectQueryBuilder<T>,
  options: { alias: string; createdColumn: string; createdProperty: string; after?: KeysetPosition; limit: number },
): Promise<Page<T>> {
  const { alias, createdColumn, createdProperty, after, limit } = options;
  const at = `"${alias}"."${createdColumn}"`;
  const id = `"${alias}"."id"`;
  query.addSelect(`to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`, 'keyset_at');
  if (after) {
    query.andWhere(`(${at}, ${id}) > (CAST(:keysetAt AS timestamp) AT TIME ZONE 'UTC', CAST(:keysetId AS uuid))`, {
      keysetAt: after.at,
      keysetId: after.id,
    });
  }
  query
    .orderBy(`${alias}.${createdProperty}`, 'ASC')
    .addOrderBy(`${alias}.id`, 'ASC')
    .limit(limit + 1);
  const { entities, raw } = await query.getRawAndEntities<{ keyset_at: string }>();
  if (entities.length <= limit) return { items: entities, nextCursor: null };
  const items = entities.slice(0, limit);
  const last = items[limit - 1];
  return { items, nextCursor: encodeCursor({ at: raw[limit - 1].keyset_at, id: last.id }) };
}
