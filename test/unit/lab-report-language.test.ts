import { detectLanguage } from '../../src/lab-reports/parsing/language';

const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

describe('lab report language', () => {
  it('reads a French/English report as English: the English half of its labels is what the parser reads', () => {
    // English words are ~11% of these, and the n-gram detector calls them French.
    const bilingual = words(`Laboratoire régional du Nouveau-Brunswick Regional Laboratory Nom Name GAGNON Rémi DDN DOB
      1987-03-12 Sexe Sex M Médecin Physician Dr Lucie Arsenault No accès Accession 25-118734 Prélevé
      2025-03-12 Rapporté 2025-03-13 Analyse Résultat Unités Intervalle Glucose 5.1 mmol/L 3.6-6.0 Sodium
      139 mmol/L 135-145 Potassium 4.2 mmol/L 3.5-5.0 Créatinine Creatinine 78 µmol/L 50-110 Hémoglobine
      Hemoglobin 142 g/L 135-175 Plaquettes Platelets 250 x10E9/L 150-400 Numéro d'assurance maladie Carte
      santé Adresse 12 rue Principale Moncton Téléphone Validé par Biochimiste clinique Commentaires
      Échantillon hémolysé légèrement Alanine aminotransférase ALT 22 U/L Phosphatase alcaline 71 U/L
      Bilirubine totale 9 µmol/L`);
    expect(detectLanguage(bilingual)).toBe('en');
  });

  it('refuses a German report, naming its language', () => {
    const german = words(`Labor Dr. Weber Befund Name Vorname Müller Hans Geburtsdatum 12.03.1987 Geschlecht männlich
      Einsender Dr. med. Schmidt Eingang 12.03.2025 Befunddatum 13.03.2025 Untersuchung Ergebnis Einheit Referenzbereich
      Natrium 139 mmol/l 135-145 Kalium 4,2 mmol/l 3,5-5,0 Kreatinin 0,9 mg/dl 0,7-1,2 Hämoglobin 14,2 g/dl 13,5-17,5
      Thrombozyten 250 Tsd/µl 150-400 Leukozyten 6,1 Tsd/µl 4,0-10,0 Blutzucker nüchtern 92 mg/dl 70-100 Befund freigegeben
      Mit freundlichen Grüßen Ihr Laborteam`);
    expect(detectLanguage(german)).toBe('de');
  });

  it('does not guess from too few words', () => {
    expect(detectLanguage(words('Glucose 5.1 mmol/L Sodium 139'))).toBeNull();
  });
});
