/**
 * One `loinc_codes` catalogue row as a migration wrote it: code, display name, long common name,
 * unit, specimen, aliases. Migrations that seed LOINC rows keep their data in snapshot files of
 * these rows, never reading src/lab-tests/loinc, so a migration means the same whatever later
 * happens to the live catalogue.
 */
export type SnapshotRow = [
  code: string,
  display: string,
  name: string,
  unit: string | null,
  specimen: 'serum_plasma' | 'blood' | 'plasma' | 'urine',
  aliases: string[],
];

export interface SnapshotLoinc {
  code: string;
  display: string;
  name: string;
  unit: string | null;
  specimen: SnapshotRow[4];
  aliases: string[];
}

export const snapshotRows = (rows: SnapshotRow[]): SnapshotLoinc[] =>
  rows.map(([code, display, name, unit, specimen, aliases]) => ({ code, display, name, unit, specimen, aliases }));
