import { withoutAccents } from './labels';
import { isInitial } from './name-words';

/** Given names that say how a name's words part: Spanish ones seldom surnames, Brazilian ones of two words, Polish ones, Arabic ones of two or three words. Used by ./names.ts. */

/** Spanish given names that are seldom surnames (accents dropped), for a name that may hold two surnames. */
const SPANISH_GIVEN_NAMES = new Set(
  (
    'jose juan antonio manuel luis carlos miguel angel francisco javier pedro jesus rafael fernando alejandro andres jorge eduardo ricardo ' +
    'roberto sergio arturo alberto enrique raul jaime hector oscar ernesto guillermo gerardo alfredo rodrigo diego pablo ignacio julio ' +
    'gustavo joaquin sebastian emilio maria elena luisa isabel carmen ana rosa teresa josefina beatriz patricia guadalupe lucia ' +
    'sofia cristina margarita alejandra gabriela veronica adriana claudia monica laura diana silvia leticia araceli yolanda martha marta ' +
    'alicia gloria irma norma raquel sandra daniela fernanda valeria mariana paola andrea karla ximena lorena susana'
  ).split(' '),
);

/**
 * Given names of two words common in Brazil (`Ana Paula`, `João Pedro`): one first name, not a first
 * and a middle. Accents dropped.
 */
const BRAZILIAN_COMPOUND_GIVEN_NAMES = new Set(
  (
    'ana paula|ana clara|ana luiza|ana luisa|ana julia|ana beatriz|ana carolina|maria eduarda|maria clara|maria luiza|maria fernanda|' +
    'maria julia|maria alice|maria cecilia|maria helena|joao pedro|joao paulo|joao victor|joao vitor|joao gabriel|joao lucas|joao miguel|' +
    'joao carlos|pedro henrique|paulo henrique|luiz henrique|jose miguel|jose carlos|jose roberto|luiz fernando|luiz carlos|luiz felipe|' +
    'luis felipe|carlos eduardo|marco antonio|luiz gustavo|maria aparecida|maria jose|ana maria'
  ).split('|'),
);

/** Whether a word is one of the Spanish given names that are seldom surnames. */
export function spanishGiven(word: string): boolean {
  return SPANISH_GIVEN_NAMES.has(plainWord(word));
}

/** A word in lower case without its accents, as the given-name lists hold it. */
function plainWord(word: string): string {
  return withoutAccents(word).toLowerCase();
}

/** The first two words when they are one Brazilian given name (`Ana Paula`), else null. */
export function brazilianCompoundGiven(words: string[]): string | null {
  if (words.length < 2) return null;
  const key = plainWord(`${words[0]} ${words[1]}`);
  return BRAZILIAN_COMPOUND_GIVEN_NAMES.has(key) ? `${words[0]} ${words[1]}` : null;
}

/**
 * Common Polish given names (accents and `ł` dropped): printed in Poland, a name comes surname first
 * (`SIKORA MARCIN`, as registries print it) or given name first, and which word is a given name says
 * which.
 */
const POLISH_GIVEN_NAMES = new Set(
  (
    'anna maria katarzyna malgorzata agnieszka barbara ewa krystyna elzbieta zofia teresa magdalena joanna janina monika danuta ' +
    'jadwiga aleksandra halina irena beata marta dorota alicja karolina jolanta iwona grazyna natalia justyna renata paulina ewelina ' +
    'julia wiktoria zuzanna maja lena hanna agata urszula sylwia izabela kamila weronika oliwia emilia patrycja marianna helena wanda ' +
    'bozena lucyna stanislawa genowefa jan andrzej piotr krzysztof stanislaw tomasz pawel jozef marcin marek michal grzegorz jerzy ' +
    'tadeusz adam lukasz zbigniew ryszard dariusz henryk mariusz kazimierz wojciech robert mateusz marian rafal jacek janusz miroslaw ' +
    'maciej slawomir jaroslaw kamil wieslaw roman wladyslaw jakub artur zdzislaw edward mieczyslaw damian dawid przemyslaw sebastian ' +
    'czeslaw leszek daniel waldemar bartosz szymon kacper filip antoni aleksander franciszek wiktor igor oskar bogdan zenon ' +
    'zaneta aneta edyta ilona klaudia martyna milena amelia gabriela dominika kinga roksana hubert konrad norbert patryk radoslaw ' +
    'ignacy karol krystian mikolaj dominik adrian arkadiusz cezary julian emil witold waclaw zygmunt boleslaw eugeniusz ireneusz teodor'
  ).split(' '),
);

/** Whether a word is a common Polish given name. */
export function polishGiven(word: string): boolean {
  return POLISH_GIVEN_NAMES.has(plainWord(word).replace(/ł/g, 'l'));
}

/**
 * How many words an Arabic given name takes: `Abd`, `Abdel`, `Abdul` ("servant of") never stand
 * alone, nor do `Abu` / `Abou` ("father of") before an article: with the name they join, and the
 * article between, they are one given name (`Abdel Rahman`, `Abd El Rahman`, `Abou El Ela`); nor
 * does a name before `El Din` ("of the faith": `Hossam El Din`, `Salah Al Din`). 1 for any other name.
 */
export function arabicGivenWords(full: string[]): number {
  const [head, next] = full.map((w) => w.toLowerCase());
  const article = (w: string | undefined) => w === 'el' || w === 'al';
  if (/^(abd|abdel|abdul)$/.test(head ?? '')) return article(next) ? 3 : 2;
  if (/^(abu|abou)$/.test(head ?? '') && article(next)) return 3;
  if (article(next) && /^(din|deen)$/i.test(full[2] ?? '')) return 3;
  return 1;
}

/**
 * Printed in the Philippines, a name's given names come before its middle name (the mother's maiden
 * surname, printed whole or as an initial): `MARIA CRISTINA R.` and `KRISTINE JOY AQUINO` give
 * `MARIA CRISTINA` and `KRISTINE JOY`. Two words without an initial are a given name and a middle
 * name (`JERICHO SANTOS`): null, as for one given name (the first word is read).
 */
export function filipinoGivenNames(words: string[]): string | null {
  const given = words.filter((w) => !isInitial(w));
  const beforeMiddle = words.length > 1 && isInitial(words[words.length - 1]) ? given : given.slice(0, -1);
  return beforeMiddle.length >= 2 ? beforeMiddle.join(' ') : null;
}

/**
 * Where the family name starts among the names after a Gulf name's `bin` (`Mohammed bin Ali Al
 * Mansoori`, `Khalid bin Ali Almutairi`): at a later word with the Arabic article (`Al`, `Al-Harbi`,
 * `Almutairi` run together), after the father's name; -1 when there is none, as in a Malay name
 * (`AHMAD FAIZAL BIN MOHD YUSOF`), whose father's name is how it is filed. (Run together only outside
 * Malaysia: `Alias` is a Malay given name.)
 */
export function arabicFamilyStart(elder: string[], malay: boolean): number {
  const article = malay ? /^(al|el)(-\p{L}+)?$/iu : /^(al|el)(-\p{L}+)?$|^al\p{L}{4,}$/iu;
  return elder.findIndex((w, i) => i > 0 && article.test(w));
}

/** Words a Malay man's name begins with (`Mohd Azlan`, `Abdul Rahman`), so a father's name too. */
const MALAY_MALE_NAME_START = /^(mohd|muhd|muhammad|muhamad|mohamad|mohammad|mohamed|ahmad|abdul|abd)$/i;

/**
 * Where a Malay name without its `bin` starts the father's name: at the last later word a man's
 * name begins with (`MOHD AZLAN MOHAMAD NOOR`: the father is `MOHAMAD NOOR`), else the last word
 * (`Siti Hajar Osman`).
 */
export function malayFatherStart(full: string[]): number {
  for (let i = full.length - 2; i >= 1; i--) if (MALAY_MALE_NAME_START.test(full[i])) return i;
  return full.length - 1;
}

/** A Spanish given name with the devotion it is named for (`María de los Ángeles`, `María del Carmen`, `José de Jesús`), accents dropped. */
const MARIAN_GIVEN_NAME =
  /^(maria|ma\.?|jose) (de los angeles|del carmen|de la luz|de jesus|del rosario|de lourdes|de guadalupe|del pilar|de los dolores|de la paz|del socorro|de fatima)( |$)/;

/** How many words a Spanish given name with its devotion takes (`MARIA DE LOS ANGELES DE LA GARZA`: 4), else 0. */
export function marianGivenWords(full: string[]): number {
  const hit = MARIAN_GIVEN_NAME.exec(plainWord(full.join(' ')));
  return hit ? hit[1].split(' ').length + hit[2].split(' ').length : 0;
}
