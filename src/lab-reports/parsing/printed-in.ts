/**
 * A report printed in a country: the country named (`countries`, alternatives), not in brackets (a
 * country in brackets is where a signer earned a degree, `PhD (Japan)`), or one of its `signs`.
 * Used by ./name-conventions.ts (how names are written there) and ./date-order.ts (which way round
 * dates are written there).
 */
export function printedIn(countries: string, signs: string): RegExp {
  return new RegExp(String.raw`(?<!\()\b(?:${countries})\b(?!\))|${signs}`);
}
