/**
 * The words around a name that are no name of the person (degrees, suffixes, honorifics, military
 * ranks) and the particles that join a family name, as the name readers (./names.ts,
 * ./providers.ts) tell them.
 */

/**
 * Degrees and credentials printed after a clinician's name (`MD`, `PA-C`, `FNP-C`, Ontario's `NP-PHC`, `MBBS`; India's `DM`,
 * `DNB`; Britain's `FRCP`, `MRCGP`; Bangladesh's and Pakistan's `FCPS`, `MCPS`, `DCP`, `M.Phil`).
 */
const DEGREES =
  'md|do|phd|rn|np|pa|pa-c|fnp|fnp-c|fnp-bc|np-phc|agnp|agnp-c|aprn|dnp|np-c|cnm|cpnp|pnp|crnp|mbbs|mbchb|dm|dnb|dgo|dch|frcp|mrcp|frcpath|mrcgp|facp|fasn|facc|fccp|faap|facs|facog|facep|faafp|ms|msc|mph|fcps|mcps|dcp|m\\.?phil|frcs|mrcs|mrcog|frcog|dtcd|dmrd';
/** Generational suffixes and degrees printed after a name. */
export const SUFFIX = new RegExp(`^(jr|sr|ii|iii|iv|v|dds|esq|${DEGREES})\\.?$`, 'i');
/** Degrees after a comma (`Anna Reyes, MD`, `Yuki Tanaka, FNP-C`, `Tasha Monroe, APRN, CPNP`), which are no LAST, FIRST comma. */
export const DEGREES_AFTER_COMMA = new RegExp(`,\\s*((?:${DEGREES})\\.?,?\\s*)+$`, 'i');
/**
 * Honorifics printed before a name (`Mallam` and `Alhaji` in Northern Nigeria, `Lolo` in the
 * East, `Sir`, `Dame`; a woman doctor's `Dre` in French, `Dra` in Spanish and Portuguese); a
 * barrister's `Barr.` only with its stop, as Barr is also a surname; a professor's `Assoc.` and `Asst.`. Italian `Dott.`, `Dott.ssa`,
 * `Sig.ra`, `Gent.ma`; Turkish `Uzm. Dr.`, `Doç. Dr.`, `Op. Dr.`, `Dr. Öğr. Üyesi`; Vietnamese
 * `BS.` (bác sĩ), `BSCKI.`, `ThS.BS.`, `PGS.TS.`, `Ông`, `Bà` (the short ones only with their stop);
 * Greek `Δρ.`; Spanish `Q.F.B.` (a chemist); a rank written in small letters (`Capt`, `Sgt`, `Cpl`, `Lt`, `LCpl`: no names); Egypt's `Ass. Prof.` (assistant professor), with its stop.
 */
export const HONORIFIC =
  /^((mr|mrs|ms|miss|mx|dr|dre|dra|prof|assoc|asst|med|chief|mst|mdm|cik|encik|puan|tuan|datin|datuk|dato'?|haji|hajah|alhaji|alhaja|hajiya|hajia|mallam|malam|lolo|engr|rev|sir|dame|capt|sgt|cpl|lt|lcpl|pfc|spc|ssgt|gysgt|sheikh|c\.o|dhr|mevr|mw|dott|sig|egr|uzm|yrd|ths|bsck(?:i|ii)?|pgs|ông|bà|δρ)\.?|q\.f\.b\.|lek\.|ass\.|hab\.|barr\.|mevrouw|(dott|dr|prof|sig)\.(ssa|ra|na)|gent\.(mo|ma)|doç\.|op\.|öğr\.|üyesi|(bs|ts|gs)\.|(ths|ts|pgs|gs)\.(bs|ts|bsck(?:i|ii)?)\.?)$/i;

/** `Sri`, `Shri`, `Smt.`, `Srimati`: titles before a Hindu name in Bangladesh, India and Nepal (elsewhere `Sri` may be a given name). */
export const SOUTH_ASIAN_TITLE = /^(sri|shri|shree|smt\.?|srimati|shrimati)$/i;

/**
 * US military ranks and corps, in capitals, before or after a name (`LCDR Dana Whitcomb`, `HUGHES,
 * SARAH J MAJ MC`, `JEFFERSON, LUIS D (PFC, USA)`): no part of it. (In capitals only: `Major` and
 * `Col` are names too.)
 */
export const MILITARY_RANK =
  /^(PVT|PV2|PFC|SPC|CPL|SGT|SSG|SFC|MSG|1SG|SGM|CSM|WO1|CW[2-5]|2LT|1LT|CPT|MAJ|LTC|COL|BG|MG|LTG|GEN|ENS|LTJG|LT|LCDR|CDR|CAPT|HM[1-3]|HMC|SSGT|TSGT|MSGT|MC|NC|DC|MSC|USA|USN|USAF|USMC)$/;

/**
 * Words that begin a surname of several (`van der Berg`, `De la Cruz`, `St. John`, `Dalla Valle`, the Dutch
 * `in 't Veld` and `van 't Hof` with their contracted article), and the Irish
 * ones printed apart (`Ó Briain`, `Ní Bhriain`, `Mac Carthaigh`, `Nic Carthaigh`), and the Māori `Te`
 * (`Te Whata`, `Te Rangi`), and the Arabic ones as Egypt spells them in Latin letters (`El Sayed`,
 * `Abdel Aziz`, `Abou El Ela`).
 */
export const PARTICLE_WORDS =
  "van|von|der|den|de|del|della|dalla|dal|delle|degli|dela|delos|los|las|la|le|da|di|du|dos|das|san|santa|st\\.?|ste\\.?|bin|al|el|abdel|abd|abou|abu|ter|ten|in|op|het|['’]t|ó|ní|nic|mac|mhic|uí|te";
export const PARTICLE = new RegExp(`^(${PARTICLE_WORDS})$`, 'i');
/** A surname's word the next word continues: a particle, or a surname joined by a hyphen to the next one's particle (`in 't Veld-de Vries`). */
export const SURNAME_GOES_ON = new RegExp(`^(${PARTICLE_WORDS})$|^\\p{L}[\\p{L}']*-(${PARTICLE_WORDS})$`, 'iu');

/** A Portuguese agnomen after the surnames (`Rafael Santos Neto`: grandson; `Filho`: son; `Sobrinho`: nephew): no surname. */
export const AGNOMEN = /^(neto|filho|j[uú]nior|sobrinho)$/i;

/**
 * One letter, with or without its stop, or initials run together with their stops (`J.P.`,
 * `S.A.M.`, as Dutch reports print the given names); the Irish `Ó` (`Seán Ó Briain`) is a
 * particle, not an initial.
 */
export const isInitial = (word: string) => (/^\p{L}\.?$/u.test(word) || /^(?:\p{L}\.){2,}$/u.test(word)) && word !== 'Ó' && word !== 'ó';
/** A word of two or more letters all in capitals (`OKONKWO`, `USMAN-KANO`). */
export const isCapitals = (word: string) => /\p{L}{2}/u.test(word) && word === word.toUpperCase() && word !== word.toLowerCase();
