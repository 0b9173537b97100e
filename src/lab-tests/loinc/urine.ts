import { type Entry, U, toCurated } from './types';

/**
 * Urinalysis (physical, test strip, microscopy) and urine chemistry. Urinalysis prints bare names
 * (`Glucose`, `Protein`, `Blood`): the specimen of the panel tells them from the serum analytes.
 */
// prettier-ignore
const ENTRIES: Entry[] = [
  // Physical and test strip
  ['5778-6', 'Color, Urine', 'Color of Urine', null, U, ['Color', 'Urine Color', 'Colour', 'Urine Colour']],
  ['5767-9', 'Appearance, Urine', 'Appearance of Urine', null, U, ['Appearance', 'Clarity', 'Urine Appearance', 'Turbidity', 'Urine Clarity']],
  ['5811-5', 'Specific Gravity, Urine', 'Specific gravity of Urine by Test strip', null, U, ['Specific Gravity', 'SG', 'Sp. Gravity', 'Urine Specific Gravity']],
  ['5803-2', 'pH, Urine', 'pH of Urine by Test strip', null, U, ['pH', 'Urine pH']],
  ['5804-0', 'Protein, Urine', 'Protein [Mass/volume] in Urine by Test strip', 'mg/dL', U, ['Protein', 'Urine Protein', 'Protein (Dipstick)', 'Albumin (Dipstick)']],
  ['5792-7', 'Glucose, Urine', 'Glucose [Mass/volume] in Urine by Test strip', 'mg/dL', U, ['Glucose', 'Urine Glucose', 'Glucose (Dipstick)', 'Sugar']],
  ['5797-6', 'Ketones, Urine', 'Ketones [Mass/volume] in Urine by Test strip', 'mg/dL', U, ['Ketones', 'Urine Ketones', 'Ketone', 'Ketone Bodies']],
  ['5794-3', 'Occult Blood, Urine', 'Hemoglobin [Presence] in Urine by Test strip', null, U, ['Blood', 'Occult Blood', 'Urine Blood', 'Hemoglobin, Urine', 'Haemoglobin (Dipstick)']],
  ['5770-3', 'Bilirubin, Urine', 'Bilirubin [Presence] in Urine by Test strip', null, U, ['Bilirubin', 'Urine Bilirubin']],
  ['20405-7', 'Urobilinogen, Urine', 'Urobilinogen [Mass/volume] in Urine by Test strip', 'mg/dL', U, ['Urobilinogen', 'Urine Urobilinogen']],
  ['5802-4', 'Nitrite, Urine', 'Nitrite [Presence] in Urine by Test strip', null, U, ['Nitrite', 'Nitrites', 'Urine Nitrite']],
  ['5799-2', 'Leukocyte Esterase, Urine', 'Leukocyte esterase [Presence] in Urine by Test strip', null, U, ['Leukocyte Esterase', 'Leukocytes (Dipstick)', 'Urine Leukocyte Esterase', 'Leucocyte Esterase']],
  // Microscopy
  ['5821-4', 'WBC, Urine', 'Leukocytes [#/area] in Urine sediment by Microscopy high power field', '/HPF', U, ['WBC', 'WBC/HPF', 'Urine WBC', 'White Blood Cells, Urine', 'Pus Cells', 'Leukocytes, Urine']],
  ['13945-1', 'RBC, Urine', 'Erythrocytes [#/area] in Urine sediment by Microscopy high power field', '/HPF', U, ['RBC', 'RBC/HPF', 'Urine RBC', 'Red Blood Cells, Urine', 'Erythrocytes, Urine']],
  ['5787-7', 'Epithelial Cells, Urine', 'Epithelial cells [#/area] in Urine sediment by Microscopy high power field', '/HPF', U, ['Epithelial Cells', 'Epithelial Cells/HPF']],
  ['11277-1', 'Squamous Epithelial Cells, Urine', 'Epithelial cells.squamous [#/area] in Urine sediment by Microscopy high power field', '/HPF', U, ['Squamous Epithelial Cells', 'Squamous Epithelial', 'Squamous Cells']],
  ['30089-7', 'Transitional Epithelial Cells, Urine', 'Transitional cells [#/area] in Urine sediment by Microscopy high power field', '/HPF', U, ['Transitional Epithelial Cells', 'Transitional Cells']],
  ['26052-1', 'Renal Epithelial Cells, Urine', 'Epithelial cells.renal [#/area] in Urine sediment by Microscopy high power field', '/HPF', U, ['Renal Epithelial Cells', 'Renal Tubular Epithelial Cells', 'Renal Tubular Cells']],
  ['5769-5', 'Bacteria, Urine', 'Bacteria [#/area] in Urine sediment by Microscopy high power field', '/HPF', U, ['Bacteria', 'Urine Bacteria']],
  ['5822-2', 'Yeast, Urine', 'Yeast [#/area] in Urine sediment by Microscopy high power field', '/HPF', U, ['Yeast', 'Yeast Cells', 'Budding Yeast']],
  ['5796-8', 'Hyaline Casts, Urine', 'Hyaline casts [#/area] in Urine sediment by Microscopy low power field', '/LPF', U, ['Hyaline Casts', 'Casts', 'Hyaline Cast']],
  ['5793-5', 'Granular Casts, Urine', 'Granular casts [#/area] in Urine sediment by Microscopy low power field', '/LPF', U, ['Granular Casts', 'Granular Cast']],
  ['5807-3', 'RBC Casts, Urine', 'RBC casts [#/area] in Urine sediment by Microscopy low power field', '/LPF', U, ['RBC Casts', 'Red Cell Casts']],
  ['5820-6', 'WBC Casts, Urine', 'WBC casts [#/area] in Urine sediment by Microscopy low power field', '/LPF', U, ['WBC Casts', 'White Cell Casts']],
  ['5819-8', 'Waxy Casts, Urine', 'Waxy casts [#/area] in Urine sediment by Microscopy low power field', '/LPF', U, ['Waxy Casts']],
  ['8247-9', 'Mucus, Urine', 'Mucus [Presence] in Urine sediment by Light microscopy', null, U, ['Mucus', 'Mucus Threads', 'Mucous']],
  ['5782-8', 'Crystals, Urine', 'Crystals [type] in Urine sediment by Light microscopy', null, U, ['Crystals', 'Crystal Type', 'Urine Crystals']],
  ['5774-5', 'Calcium Oxalate Crystals, Urine', 'Calcium oxalate crystals [Presence] in Urine sediment by Light microscopy', null, U, ['Calcium Oxalate Crystals', 'Calcium Oxalate', 'Ca Oxalate Crystals']],
  ['5817-2', 'Uric Acid Crystals, Urine', 'Urate crystals [Presence] in Urine sediment by Light microscopy', null, U, ['Uric Acid Crystals', 'Urate Crystals']],
  ['5814-9', 'Triple Phosphate Crystals, Urine', 'Triple phosphate crystals [Presence] in Urine sediment by Light microscopy', null, U, ['Triple Phosphate Crystals', 'Triple Phosphate']],
  ['8246-1', 'Amorphous Sediment, Urine', 'Amorphous sediment [Presence] in Urine sediment by Light microscopy', null, U, ['Amorphous Sediment', 'Amorphous Crystals', 'Amorphous Urates']],
  ['5813-1', 'Trichomonas, Urine', 'Trichomonas vaginalis [Presence] in Urine sediment by Light microscopy', null, U, ['Trichomonas', 'Trichomonas vaginalis']],
  // Urine chemistry
  ['2161-8', 'Creatinine, Urine', 'Creatinine [Mass/volume] in Urine', 'mg/dL', U, ['Urine Creatinine', 'Creatinine, Random Urine']],
  ['14683-7', 'Creatinine, Urine (SI)', 'Creatinine [Moles/volume] in Urine', 'mmol/L', U, ['Creatinine, Urine', 'Urine Creatinine', 'Creatinine, Random Urine']],
  ['14957-5', 'Microalbumin, Urine', 'Microalbumin [Mass/volume] in Urine', 'mg/L', U, ['Microalbumin', 'Urine Microalbumin', 'Albumin, Urine', 'Urine Albumin']],
  ['14959-1', 'Microalbumin/Creatinine Ratio', 'Microalbumin/Creatinine [Mass Ratio] in Urine', 'mg/g', U, ['Microalb/Creat Ratio', 'Microalbumin/Creatinine Ratio, Random Urine']],
  ['9318-7', 'Albumin/Creatinine Ratio, Urine', 'Albumin/Creatinine [Mass Ratio] in Urine', 'mg/g', U, ['ACR', 'Urine Albumin/Creatinine Ratio', 'UACR', 'Albumin/Creatinine Ratio']],
  ['2888-6', 'Protein, Urine (quantitative)', 'Protein [Mass/volume] in Urine', 'mg/dL', U, ['Urine Total Protein', 'Protein, Random Urine', 'Total Protein, Urine']],
  ['2890-2', 'Protein/Creatinine Ratio, Urine', 'Protein/Creatinine [Mass Ratio] in Urine', 'mg/g', U, ['Protein/Creatinine Ratio', 'UPCR', 'Urine Protein/Creatinine Ratio', 'Protein Creatinine Ratio']],
  ['2889-4', 'Protein, 24 Hour Urine', 'Protein [Mass/time] in 24 hour Urine', 'mg/(24.h)', U, ['24 Hour Urine Protein', 'Protein, 24 hr Urine', 'Total Protein, 24 Hour Urine']],
  ['2350-7', 'Glucose, Urine (quantitative)', 'Glucose [Mass/volume] in Urine', 'mg/dL', U, ['Urine Glucose, Quantitative']],
  ['2955-3', 'Sodium, Urine', 'Sodium [Moles/volume] in Urine', 'mmol/L', U, ['Urine Sodium', 'Sodium, Random Urine']],
  ['2828-2', 'Potassium, Urine', 'Potassium [Moles/volume] in Urine', 'mmol/L', U, ['Urine Potassium', 'Potassium, Random Urine']],
  ['2078-4', 'Chloride, Urine', 'Chloride [Moles/volume] in Urine', 'mmol/L', U, ['Urine Chloride', 'Chloride, Random Urine']],
  ['17862-4', 'Calcium, Urine', 'Calcium [Mass/volume] in Urine', 'mg/dL', U, ['Urine Calcium', 'Calcium, Random Urine']],
  ['6874-2', 'Calcium, 24 Hour Urine', 'Calcium [Mass/time] in 24 hour Urine', 'mg/(24.h)', U, ['24 Hour Urine Calcium', 'Calcium, 24 hr Urine']],
  ['3086-6', 'Uric Acid, Urine', 'Urate [Mass/volume] in Urine', 'mg/dL', U, ['Urine Uric Acid', 'Urate, Urine']],
  ['3095-7', 'Urea Nitrogen, Urine', 'Urea nitrogen [Mass/volume] in Urine', 'mg/dL', U, ['Urine Urea Nitrogen', 'UUN']],
  ['2695-5', 'Osmolality, Urine', 'Osmolality of Urine', 'mosm/kg', U, ['Urine Osmolality']],
  ['2162-6', 'Creatinine, 24 Hour Urine', 'Creatinine [Mass/time] in 24 hour Urine', 'mg/(24.h)', U, ['24 Hour Urine Creatinine', 'Creatinine, 24 hr Urine']],
  ['2164-2', 'Creatinine Clearance', 'Creatinine renal clearance in 24 hour Urine', 'mL/min', U, ['CrCl', 'Creatinine Clearance, 24 Hour', 'Creatinine Clearance, Urine']],
];

export const URINE = toCurated(ENTRIES);
