/**
 * A `loinc_codes` row as lab-report parsing matches printed test names against it (its
 * `LoincRow`): the repository returns these, the parsing library builds its catalogue from them.
 */
export interface LoincCatalogueRow {
  code: string;
  /** LOINC long common name. */
  name: string;
  /** The name labs print (`Hemoglobin A1c`). */
  display_name: string | null;
  unit: string | null;
  /** Other printed names and abbreviations (`HbA1c`, `A1C`, `Glycated hemoglobin`). */
  aliases: string[];
  /** LOINC system, simplified: `serum_plasma`, `blood`, `plasma`, `urine`. */
  specimen: string | null;
}
