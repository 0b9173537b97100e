/**
 * Whether a parsed report names the patient labflow has on file for the job's user. Names are
 * compared forgivingly where that cannot join two different people (case, accents, punctuation,
 * "LAST, FIRST" read the other way round, middle names and initials, suffixes); the date of birth
 * must be the same day.
 */

/** Why a job was sent to review by labflow itself (the job's `review_reason`). */
export const IDENTITY_REVIEW_REASONS = ['patient_name_mismatch', 'patient_dob_mismatch', 'patient_identity_unreadable'] as const;
export type IdentityReviewReason = (typeof IDENTITY_REVIEW_REASONS)[number];

export interface ReportIdentity {
  patient_first_name?: string | null;
  patient_last_name?: string | null;
  dob?: string | null;
}

export interface PatientOnFile {
  first_name: string;
  last_name: string;
  /** YYYY-MM-DD. */
  dob: string;
}

/** Generational and professional suffixes printed after a name; they never tell two people apart here. */
const SUFFIXES = new Set(['jr', 'sr', 'ii', 'iii', 'iv', 'v', 'md', 'phd', 'do', 'rn', 'esq']);

/** Lower case, accents off, apostrophes joined (O'Brien → obrien), other punctuation as spaces, suffixes dropped. */
export function nameTokens(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter((token) => token && !SUFFIXES.has(token));
}

/** Every token of the shorter name appears, in order, in the longer (compound surnames, hyphens). */
function sameSurname(a: string[], b: string[]): boolean {
  if (!a.length || !b.length) return false;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  let at = 0;
  for (const token of long) if (token === short[at]) at += 1;
  return at === short.length;
}

/**
 * Given names match on the first full word (`Jane` in `Jane Marie` or `Jane M`); a bare initial
 * never matches a name, as it would match half the patients of a lab.
 */
function sameGivenName(a: string[], b: string[]): boolean {
  const [x, y] = [a.filter((t) => t.length > 1), b.filter((t) => t.length > 1)];
  return x.length > 0 && y.length > 0 && x[0] === y[0];
}

function namesMatch(first: string[], last: string[], onFile: PatientOnFile): boolean {
  const [givenOnFile, surnameOnFile] = [nameTokens(onFile.first_name), nameTokens(onFile.last_name)];
  if (sameGivenName(first, givenOnFile) && sameSurname(last, surnameOnFile)) return true;
  // A "LAST, FIRST" line read without its comma, or first and last printed the other way round.
  return sameGivenName(last, givenOnFile) && sameSurname(first, surnameOnFile);
}

/** Null when the report's patient is the one on file; otherwise why a human should look. */
export function identityReviewReason(report: ReportIdentity, onFile: PatientOnFile): IdentityReviewReason | null {
  const first = nameTokens(report.patient_first_name ?? '');
  const last = nameTokens(report.patient_last_name ?? '');
  const dob = report.dob?.trim() ?? '';
  if (!first.length || !last.length || !/^\d{4}-\d{2}-\d{2}$/.test(dob)) return 'patient_identity_unreadable';
  if (dob !== onFile.dob) return 'patient_dob_mismatch';
  if (!namesMatch(first, last, onFile)) return 'patient_name_mismatch';
  return null;
}
