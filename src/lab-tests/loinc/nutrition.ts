import { type Entry, SP, B, toCurated } from './types';

/** Vitamins, trace elements and iron studies. */
// prettier-ignore
const ENTRIES: Entry[] = [
  // Vitamin D
  ['62292-8', 'Vitamin D, 25-Hydroxy', '25-hydroxyvitamin D2+25-hydroxyvitamin D3 [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['25-OH Vitamin D', 'Vitamin D 25-OH', 'Vitamin D, 25-OH, Total', '25-Hydroxyvitamin D', 'Vitamin D Total', 'Vitamin D', '25(OH)D', 'Vitamin D, 25-Hydroxy, Total']],
  ['1989-3', 'Vitamin D3, 25-Hydroxy', '25-hydroxyvitamin D3 [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['25-OH Vitamin D3', '25-Hydroxyvitamin D3', 'Vitamin D3, 25-OH', 'Calcidiol']],
  ['14635-7', 'Vitamin D3, 25-Hydroxy (SI)', '25-hydroxyvitamin D3 [Moles/volume] in Serum or Plasma', 'nmol/L', SP, ['Vitamin D3, 25-Hydroxy', '25-OH Vitamin D3', '25-Hydroxyvitamin D3', 'Vitamin D3, 25-OH', 'Calcidiol']],
  // B vitamins
  ['2132-9', 'Vitamin B12', 'Cobalamin (Vitamin B12) [Mass/volume] in Serum or Plasma', 'pg/mL', SP, ['B12', 'Cobalamin', 'Cyanocobalamin', 'Vit B12', 'Vitamin B12, Serum']],
  ['14685-2', 'Vitamin B12 (SI)', 'Cobalamin (Vitamin B12) [Moles/volume] in Serum or Plasma', 'pmol/L', SP, ['Vitamin B12', 'B12', 'Cobalamin', 'Cyanocobalamin', 'Vit B12', 'Vitamin B12, Serum']],
  ['2284-8', 'Folate', 'Folate [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['Folic Acid', 'Folate, Serum', 'Serum Folate']],
  ['14732-2', 'Folate (SI)', 'Folate [Moles/volume] in Serum or Plasma', 'nmol/L', SP, ['Folate', 'Folic Acid', 'Folate, Serum', 'Serum Folate']],
  ['2283-0', 'Folate, RBC', 'Folate [Mass/volume] in Red Blood Cells', 'ng/mL', B, ['RBC Folate', 'Red Cell Folate', 'Folate, Red Blood Cell', 'Erythrocyte Folate']],
  ['14731-4', 'Folate, RBC (SI)', 'Folate [Moles/volume] in Red Blood Cells', 'nmol/L', B, ['Folate, RBC', 'RBC Folate', 'Red Cell Folate', 'Folate, Red Blood Cell', 'Erythrocyte Folate']],
  ['13964-2', 'Methylmalonic Acid', 'Methylmalonate [Moles/volume] in Serum or Plasma', 'nmol/L', SP, ['MMA', 'Methylmalonic Acid, Serum', 'Methylmalonate']],
  ['2998-3', 'Vitamin B1 (Thiamine)', 'Thiamine [Mass/volume] in Blood', 'ug/L', B, ['Thiamine', 'Vitamin B1', 'Thiamin', 'Vitamin B1, Whole Blood']],
  ['32554-8', 'Vitamin B1 (Thiamine) (SI)', 'Thiamine [Moles/volume] in Blood', 'nmol/L', B, ['Vitamin B1 (Thiamine)', 'Thiamine', 'Vitamin B1', 'Thiamin', 'Vitamin B1, Whole Blood']],
  ['2900-9', 'Vitamin B6', 'Pyridoxine (Vitamin B6) [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['Pyridoxine', 'Vitamin B6, Plasma', 'Vit B6']],
  ['39786-9', 'Vitamin B6 (SI)', 'Pyridoxine [Moles/volume] in Serum or Plasma', 'nmol/L', SP, ['Vitamin B6', 'Pyridoxine', 'Vitamin B6, Plasma', 'Vit B6']],
  // Other vitamins
  ['2923-1', 'Vitamin A', 'Retinol [Mass/volume] in Serum or Plasma', 'ug/dL', SP, ['Retinol', 'Vitamin A (Retinol)']],
  ['14905-4', 'Vitamin A (SI)', 'Retinol [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Vitamin A', 'Retinol', 'Vitamin A (Retinol)']],
  ['1903-4', 'Vitamin C', 'Ascorbate [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Ascorbic Acid', 'Ascorbate', 'Vitamin C (Ascorbic Acid)']],
  ['14622-5', 'Vitamin C (SI)', 'Ascorbate [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Vitamin C', 'Ascorbic Acid', 'Ascorbate', 'Vitamin C (Ascorbic Acid)']],
  // Trace elements
  ['5763-8', 'Zinc', 'Zinc [Mass/volume] in Serum or Plasma', 'ug/dL', SP, ['Zinc, Serum', 'Zinc, Plasma', 'Zn']],
  ['14955-9', 'Zinc (SI)', 'Zinc [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Zinc', 'Zinc, Serum', 'Zinc, Plasma', 'Zn']],
  ['5631-7', 'Copper', 'Copper [Mass/volume] in Serum or Plasma', 'ug/dL', SP, ['Copper, Serum', 'Copper, Plasma', 'Cu']],
  ['14665-4', 'Copper (SI)', 'Copper [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Copper', 'Copper, Serum', 'Copper, Plasma', 'Cu']],
  ['5724-0', 'Selenium', 'Selenium [Mass/volume] in Serum or Plasma', 'ug/L', SP, ['Selenium, Serum', 'Selenium, Plasma', 'Se']],
  ['25521-6', 'Selenium (SI)', 'Selenium [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Selenium', 'Selenium, Serum', 'Selenium, Plasma', 'Se']],
  ['2064-4', 'Ceruloplasmin', 'Ceruloplasmin [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Caeruloplasmin', 'Ceruloplasmin, Serum']],
  ['2597-3', 'Magnesium, RBC', 'Magnesium [Moles/volume] in Red Blood Cells', 'mmol/L', B, ['RBC Magnesium', 'Red Cell Magnesium', 'Magnesium, Red Blood Cell']],
  // Iron studies
  ['2276-4', 'Ferritin', 'Ferritin [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['Ferritin, Serum', 'FERR', 'Serum Ferritin']],
  ['2498-4', 'Iron, Total', 'Iron [Mass/volume] in Serum or Plasma', 'ug/dL', SP, ['Iron', 'Serum Iron', 'Fe', 'Iron, Serum']],
  ['14798-3', 'Iron (SI)', 'Iron [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Iron, Total', 'Iron', 'Serum Iron', 'Fe', 'Iron, Serum']],
  ['2500-7', 'Iron Binding Capacity (TIBC)', 'Iron binding capacity [Mass/volume] in Serum or Plasma', 'ug/dL', SP, ['TIBC', 'Total Iron Binding Capacity', 'Iron Binding Capacity']],
  ['14800-7', 'TIBC (SI)', 'Iron binding capacity [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Iron Binding Capacity (TIBC)', 'TIBC', 'Total Iron Binding Capacity', 'Iron Binding Capacity']],
  ['2501-5', 'UIBC', 'Iron binding capacity.unsaturated [Mass/volume] in Serum or Plasma', 'ug/dL', SP, ['Unsaturated Iron Binding Capacity']],
  ['22753-8', 'UIBC (SI)', 'Iron binding capacity.unsaturated [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['UIBC', 'Unsaturated Iron Binding Capacity']],
  ['2502-3', 'Iron Saturation', 'Iron saturation [Mass Fraction] in Serum or Plasma', '%', SP, ['Transferrin Saturation', '% Saturation', 'Iron % Saturation', 'TSAT', 'Iron Sat', 'Transferrin Sat']],
  ['3034-6', 'Transferrin', 'Transferrin [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Transferrin, Serum']],
];

export const NUTRITION = toCurated(ENTRIES);
