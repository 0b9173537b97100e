/** The order-level clinical comment limit (interface spec, Limits). */
export const MAX_ORDER_CLINICAL_NOTES_LENGTH = 1000;

/**
 * The clinical comment printed on a requisition: the lab account's default comment and the
 * order's comment, concatenated.
 *
 * Order of the parts: the account default first, then the order comment, joined with a blank
 * line ("\n\n"). The account default is the standing instruction for every order billed to that
 * account (it reads like a letterhead note), the order comment is specific to this patient and
 * draw, so the lab reads general → specific and the account's note always sits at the same place.
 *
 * Each part is trimmed; an empty or whitespace-only part counts as absent. Returns null when
 * neither part has text, and the one present part alone when only one has text.
 */
export function requisitionComment(orderNotes: string | null | undefined, accountDefault: string | null | undefined): string | null {
  const parts = [accountDefault, orderNotes].map((part) => part?.trim() ?? '').filter((part) => part.length > 0);
  return parts.length === 0 ? null : parts.join('\n\n');
}
