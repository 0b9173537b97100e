/**
 * Test names in the other languages labflow reads reports in, word by word (and phrase by phrase
 * where one language's phrase is another's word) as the catalogue's English names. Keys are as
 * `nameTokens` (normalise.ts) makes words: lower case, accents dropped, Greek kept in its letters
 * (final sigma as σ). A word that names nothing in a test's name (Spanish `de`) maps to ''.
 * Used by ./normalise.ts.
 */

/**
 * Test names in Dutch (`Lymfocyten %`, `Kalium`, `Totaal eiwit`, `Glucose nuchter`), word by word as
 * their English names: a Dutch lab's names then meet the catalogue's English ones (German shares
 * `Natrium`, `Kalium`; French `Albumine`, `Bilirubine`). Words the languages spell alike
 * (`Glucose`, `Calcium`, `Cholesterol`) need nothing.
 */
const DUTCH: Record<string, string> = {
  hemoglobine: 'hemoglobin',
  hematocriet: 'hematocrit',
  leukocyten: 'leukocytes',
  leucocyten: 'leukocytes',
  erytrocyten: 'erythrocytes',
  erythrocyten: 'erythrocytes',
  trombocyten: 'platelets',
  neutrofielen: 'neutrophils',
  neutrofiele: 'neutrophils',
  lymfocyten: 'lymphocytes',
  monocyten: 'monocytes',
  eosinofielen: 'eosinophils',
  eosinofiele: 'eosinophils',
  basofielen: 'basophils',
  basofiele: 'basophils',
  granulocyten: 'granulocytes',
  reticulocyten: 'reticulocytes',
  bse: 'esr',
  bezinking: 'sedimentation',
  ureum: 'urea',
  kreatinine: 'creatinine',
  natrium: 'sodium',
  kalium: 'potassium',
  fosfaat: 'phosphate',
  urinezuur: 'uric acid',
  totaal: 'total',
  eiwit: 'protein',
  albumine: 'albumin',
  bilirubine: 'bilirubin',
  geconjugeerd: 'direct',
  alkalische: 'alkaline',
  fosfatase: 'phosphatase',
  ferritine: 'ferritin',
  transferrine: 'transferrin',
  ijzer: 'iron',
  foliumzuur: 'folate',
  vitamine: 'vitamin',
  vrij: 'free',
  nuchter: 'fasting',
  triglyceriden: 'triglycerides',
  berekend: 'calculated',
};

/**
 * Test names in Italian and Turkish where they differ from the English, word by word as DUTCH
 * (`VES`, `Emoglobina`, `Eritrosit dağılım genişliği`), and the phrases that are one word in
 * English (`Peso specifico`, `Corpi chetonici`, the Vietnamese `lúc đói` after a test's name);
 * Turkish puts `non-` after its noun (`HDL dışı kolesterol`).
 */
const ITALIAN_TURKISH_VIETNAMESE_PHRASES: [RegExp, string][] = [
  [/\bpeso specifico\b/g, 'specific gravity'],
  [/\bcorpi chetonici\b/g, 'ketones'],
  [/\bluc doi\b/g, 'fasting'],
  [/\b(\w+) disi\b/g, 'non $1'],
];
const ITALIAN_TURKISH: Record<string, string> = {
  ves: 'esr',
  aspetto: 'appearance',
  emoglobina: 'hemoglobin',
  glucosio: 'glucose',
  colesterolo: 'cholesterol',
  trigliceridi: 'triglycerides',
  creatinina: 'creatinine',
  azotemia: 'urea',
  potassio: 'potassium',
  sodio: 'sodium',
  ferro: 'iron',
  fosfatasi: 'phosphatase',
  alcalina: 'alkaline',
  cloro: 'chloride',
  bicarbonati: 'bicarbonate',
  kolesterol: 'cholesterol',
  trigliserid: 'triglycerides',
  kreatinin: 'creatinine',
  eritrosit: 'erythrocyte',
  dagilim: 'distribution',
  genisligi: 'width',
  bikarbonat: 'bicarbonate',
};

/**
 * Polish test names (`Żelazo`, `Kwas foliowy`, `Wysycenie transferyny`, `TIBC (całk. zdolność
 * wiązania Fe)`, `Cholesterol nie-HDL`).
 */
const POLISH: Record<string, string> = {
  zelazo: 'iron',
  wysycenie: 'saturation',
  transferyny: 'transferrin',
  transferyna: 'transferrin',
  kortyzol: 'cortisol',
  rano: 'am',
  calk: 'total',
  calkowity: 'total',
  calkowita: 'total',
  zdolnosc: 'capacity',
  wiazania: 'binding',
  fe: 'iron',
  triglicerydy: 'triglycerides',
  wskaznik: 'ratio',
  wodoroweglany: 'bicarbonate',
  witamina: 'vitamin',
  glukoza: 'glucose',
  kreatynina: 'creatinine',
  mocznik: 'urea',
  hemoglobina: 'hemoglobin',
  leukocyty: 'leukocytes',
  erytrocyty: 'erythrocytes',
  plytki: 'platelets',
  krwi: '',
  moczu: 'urine',
  bialko: 'protein',
  barwa: 'color',
  przejrzystosc: 'clarity',
  azotyny: 'nitrite',
  krew: 'blood',
  esteraza: 'esterase',
};

/** Greek test names (`Λεμφοκύτταρα %`, `Χοληστερίνη ολική`, `Κορεσμός τρανσφερρίνης`, `Σάκχαρο νηστείας`). */
const GREEK: Record<string, string> = {
  λεμφοκυτταρα: 'lymphocytes',
  μονοκυτταρα: 'monocytes',
  ηωσινοφιλα: 'eosinophils',
  ουδετεροφιλα: 'neutrophils',
  βασεοφιλα: 'basophils',
  λευκα: 'leukocytes',
  ερυθρα: 'erythrocytes',
  αιμοπεταλια: 'platelets',
  αιμοσφαιρινη: 'hemoglobin',
  αιματοκριτησ: 'hematocrit',
  τεστοστερονη: 'testosterone',
  κορτιζολη: 'cortisol',
  πρωινη: 'am',
  χοληστερινη: 'cholesterol',
  χοληστ: 'cholesterol',
  τριγλυκεριδια: 'triglycerides',
  λογοσ: 'ratio',
  ολικη: 'total',
  ολ: 'total',
  ινσουλινη: 'insulin',
  σακχαρο: 'glucose',
  νηστειασ: 'fasting',
  κορεσμοσ: 'saturation',
  τρανσφερρινησ: 'transferrin',
  σιδηροσ: 'iron',
  φεριτινη: 'ferritin',
  διττανθρακικα: 'bicarbonate',
  κρεατινινη: 'creatinine',
  ουρια: 'urea',
  ουρικο: 'uric',
  οξυ: 'acid',
  καλιο: 'potassium',
  νατριο: 'sodium',
  ασβεστιο: 'calcium',
  χρωμα: 'color',
  οψη: 'appearance',
  λευκωμα: 'protein',
  ουρων: 'urine',
  κετονεσ: 'ketones',
  αιμα: 'blood',
  νιτρωδη: 'nitrite',
  εστεραση: 'esterase',
  λευκοκυτταρων: 'leukocyte',
  ειδικο: 'specific',
  βαροσ: 'gravity',
};

/**
 * Spanish test names (`Leucocitos`, `Hierro sérico`, `Capacidad total de fijación de hierro`, `T4
 * libre`, `Ancho de distribución eritrocitaria`).
 */
const SPANISH: Record<string, string> = {
  leucocitos: 'leukocytes',
  eritrocitos: 'erythrocytes',
  plaquetas: 'platelets',
  plaquetario: 'platelet',
  volumen: 'volume',
  medio: 'mean',
  hierro: 'iron',
  serico: '',
  capacidad: 'capacity',
  fijacion: 'binding',
  porcentaje: '%',
  saturacion: 'saturation',
  libre: 'free',
  linfocitos: 'lymphocytes',
  monocitos: 'monocytes',
  eosinofilos: 'eosinophils',
  neutrofilos: 'neutrophils',
  basofilos: 'basophils',
  cmhc: 'mchc',
  hcm: 'mch',
  vcm: 'mcv',
  glucosa: 'glucose',
  colesterol: 'cholesterol',
  trigliceridos: 'triglycerides',
  acido: 'acid',
  urico: 'uric',
  hematocrito: 'hematocrit',
  proteinas: 'protein',
  totales: 'total',
  de: '',
  del: '',
};

/** Phrases that are one word, or one abbreviation, in English. */
const SPANISH_POLISH_PHRASES: [RegExp, string][] = [
  [/\bancho de distribucion eritrocitaria\b/g, 'rdw'],
  [/\bindice aterogenico\b/g, 'cholesterol hdl ratio'],
  [/\bkwas foliowy\b/g, 'folate'],
  [/\bciezar wlasciwy\b/g, 'specific gravity'],
  [/\bciala ketonowe\b/g, 'ketones'],
  [/\bw moczu\b/g, 'urine'],
  // `Neutrófilos totales`: the absolute count (`Proteínas totales` stays total protein).
  [/\b(neutrofilos|linfocitos|monocitos|eosinofilos|basofilos) totales\b/g, '$1 absolute'],
  // `Colesterol no HDL`, `Cholesterol nie-HDL`: non-HDL.
  [/\b(?:no|nie) hdl\b/g, 'non hdl'],
];

export const OTHER_LANGUAGE_PHRASES: [RegExp, string][] = [...ITALIAN_TURKISH_VIETNAMESE_PHRASES, ...SPANISH_POLISH_PHRASES];

/** Every language's words; no word is spelled alike in two with different meanings. */
export const OTHER_LANGUAGE_WORDS: Record<string, string> = { ...DUTCH, ...ITALIAN_TURKISH, ...POLISH, ...GREEK, ...SPANISH };
