import { PARTICLE_WORDS } from './name-words';

/** A patient value's name cut from what a line prints after it, and whether a text is printed as a name. Used by ./metadata.ts and ./headed-blocks.ts. */

/** A name in brackets after initials and any particles filed after them (`C.A. (KEES)`, `J.J.J. DE (JOOST)`), then the rest of the value. */
const CALLED_NAME = new RegExp(`^(.*(?:^|[\\s,])(?:\\p{L}\\.)+(?:\\s+(?:${PARTICLE_WORDS}))*\\s*\\(\\s*\\p{L}[\\p{L}'-]+\\s*\\))(.*)$`, 'iu');

/**
 * A patient value's name apart from what a line prints after it (`Jane Doe - DOB 1/2/1980 - F`,
 * `Ms. Jane Doe (born …)`, `Jane Doe, female, date of birth …`): the name, and the rest for the
 * sex and birth date it may carry. A `LAST, FIRST` comma is no cut.
 */
export function splitNameValue(value: string): { name: string; rest: string } {
  // `BROUWER, C.A. (KEES)`, `JONG, J.J.J. DE (JOOST)`: after initials (and a surname's particles
  // filed after them), a name in brackets is the one the patient goes by, part of the name.
  // `Chief (Mrs.) Oluwakemi Adeyemi`: an honorific in brackets before the name is a title, not the end of the name.
  value = value.replace(/\((mrs|mr|ms|miss|dr|prof)\.?\)(?=\s+\p{L})/giu, '$1.');
  const called = CALLED_NAME.exec(value);
  if (called) return { name: called[1].trim(), rest: called[2] };
  const cut =
    /\s+[-–|]\s+|\s*[(;]|,\s*(?=(?:male|female|man|woman|born|dob|d\.o\.b|date of birth|age|aged|\d)\b)|\s+(?=(?:born|dob|d\.o\.b\.?|date of birth)\b)/i.exec(
      value,
    );
  return cut ? { name: value.slice(0, cut.index).trim(), rest: value.slice(cut.index) } : { name: value.trim(), rest: '' };
}

/** Two to five words of a name: capitalised, initials, particles; no digits. */
const NAME_SHAPE = /^(?:(?:Mr|Mrs|Ms|Miss|Mx)\.?\s+)?(?:(?:\p{Lu}[\p{L}'-]*\.?|van|von|de|der|del|la|le|da|di|du),?\s+){1,4}\p{Lu}[\p{L}'-]*\.?$/u;

/** Whether a text is printed as a person's name (`DOE, JANE M`, `Jane van der Berg`), nothing else. */
export function nameShaped(text: string): boolean {
  return NAME_SHAPE.test(text.trim());
}
