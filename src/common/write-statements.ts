/**
 * TypeORM's `query()` answers an UPDATE or DELETE as `[rows, affected]` (its RETURNING rows and the
 * count of rows it touched), but a SELECT or INSERT as the rows alone. These two name the halves,
 * so a repository says which one it wants instead of destructuring a tuple by hand.
 */
interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** The RETURNING rows of an UPDATE or DELETE. */
export async function changedRows<Row>(db: Queryable, sql: string, parameters: unknown[]): Promise<Row[]> {
  const [rows] = (await db.query(sql, parameters)) as [Row[], number];
  return rows;
}

/** How many rows an UPDATE or DELETE touched. */
export async function changedCount(db: Queryable, sql: string, parameters: unknown[]): Promise<number> {
  const [, count] = (await db.query(sql, parameters)) as [unknown[], number];
  return count;
}
