import { buildLoincCatalogue, type LoincCatalogue } from '../../src/lab-reports/parsing';
import { CURATED_LOINC } from '../../src/lab-tests/loinc';

/** The LOINC catalogue the migration stores, built straight from its data file (no database). */
export function curatedLoincCatalogue(): LoincCatalogue {
  return buildLoincCatalogue(CURATED_LOINC.map((l) => ({ code: l.code, name: l.name, display_name: l.display, unit: l.unit, aliases: l.aliases, specimen: l.specimen })));
}
