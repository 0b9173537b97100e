/**
 * Which provider wins when two report the same data (`/v2/team/source/priorities`): the data
 * types a team ranks providers for (the SDK's PriorityResource), and the merge the reads without a
 * `provider` filter apply. Without a ranking the reads answer every source, as before.
 */
export const PRIORITY_DATA_TYPES = ['workouts', 'activity', 'sleep', 'body', 'timeseries'] as const;
export type PriorityDataType = (typeof PRIORITY_DATA_TYPES)[number];

/** The data type a summary type's reads are ranked by; null for types no ranking applies to. */
export function priorityDataTypeOfSummary(summaryType: string): PriorityDataType | null {
  return (PRIORITY_DATA_TYPES as readonly string[]).includes(summaryType) && summaryType !== 'timeseries' ? (summaryType as PriorityDataType) : null;
}

/**
 * Of the rows reporting the same thing (same `keyOf`: a day, a timestamp), those of the best-ranked
 * provider among them; where none of them is ranked, all of them. `rank`: provider → priority
 * (1 best); providers it does not name rank after every named one. Order is kept.
 */
export function preferRanked<T extends { provider: string }>(rows: T[], rank: ReadonlyMap<string, number>, keyOf: (row: T) => string): T[] {
  if (rank.size === 0) return rows;
  const best = new Map<string, number>();
  for (const row of rows) {
    const key = keyOf(row);
    const value = rank.get(row.provider) ?? Number.POSITIVE_INFINITY;
    if (value < (best.get(key) ?? Number.POSITIVE_INFINITY)) best.set(key, value);
  }
  return rows.filter((row) => {
    const winner = best.get(keyOf(row));
    return winner === undefined || (rank.get(row.provider) ?? Number.POSITIVE_INFINITY) === winner;
  });
}
