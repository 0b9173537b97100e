import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Seeds the lab catalog: US labs under Junction's slugs, LOINC codes, each lab's markers and
 * panels with adult reference ranges, global lab tests for every collection method, and platform
 * lab accounts (one not-delegated account per lab so any team can order, plus sandbox accounts
 * of every delegation kind and status).
 *
 * Marker ids are `lab_id * 1000 + n` (panels `lab_id * 1000 + 900 + n`), so the same analyte at
 * another lab has another id and provider_id, as in Junction. provider_id values are labflow's
 * own order codes (`<lab_id><nnnn>`), not the labs' real test codes. Reference ranges are common
 * adult ranges in the marker's unit (by sex where they differ); critical limits are set where
 * labs customarily call them. The data is a snapshot: change it with a new migration.
 */

type Range = { min?: number; max?: number };

interface Analyte {
  key: string;
  name: string;
  loinc: string;
  unit: string;
  description: string;
  price: number;
  range?: Range;
  critical?: { low?: number; high?: number };
  bySex?: { male?: Range; female?: Range };
  /** Measured on dried blood spot test kits. */
  dbs?: boolean;
  /** Calculated from other results: reported, never ordered on its own. */
  calculated?: boolean;
}

export const SEED_LABS = [
  {
    id: 1,
    slug: 'quest',
    name: 'Quest Diagnostics',
    first_line_address: '500 Plaza Drive',
    city: 'Secaucus',
    state: 'NJ',
    zipcode: '07094',
    collection_methods: ['walk_in_test', 'at_home_phlebotomy'],
    sample_types: ['serum', 'urine'],
    supports_delegated_accounts: true,
  },
  {
    id: 2,
    slug: 'labcorp',
    name: 'Labcorp',
    first_line_address: '531 South Spring Street',
    city: 'Burlington',
    state: 'NC',
    zipcode: '27215',
    collection_methods: ['walk_in_test', 'at_home_phlebotomy'],
    sample_types: ['serum', 'urine'],
    supports_delegated_accounts: true,
  },
  {
    id: 3,
    slug: 'bioreference',
    name: 'BioReference Health',
    first_line_address: '481 Edward H. Ross Drive',
    city: 'Elmwood Park',
    state: 'NJ',
    zipcode: '07407',
    collection_methods: ['walk_in_test', 'at_home_phlebotomy'],
    sample_types: ['serum', 'urine'],
    supports_delegated_accounts: true,
  },
  {
    id: 4,
    slug: 'sonora_quest',
    name: 'Sonora Quest Laboratories',
    first_line_address: '1255 West Washington Street',
    city: 'Tempe',
    state: 'AZ',
    zipcode: '85281',
    collection_methods: ['walk_in_test', 'at_home_phlebotomy'],
    sample_types: ['serum', 'urine'],
    supports_delegated_accounts: true,
  },
  {
    id: 5,
    slug: 'us_biotek',
    name: 'US BioTek Laboratories',
    first_line_address: '16020 Linden Avenue North',
    city: 'Shoreline',
    state: 'WA',
    zipcode: '98133',
    collection_methods: ['testkit'],
    sample_types: ['dried_blood_spot', 'saliva', 'urine'],
    supports_delegated_accounts: false,
  },
] as const;

/** Price multiplier per lab over the analyte's base price. */
const LAB_PRICE_FACTOR: Record<number, number> = { 1: 1, 2: 0.95, 3: 0.9, 4: 0.85, 5: 1.2 };

// prettier-ignore
export const SEED_ANALYTES: Analyte[] = [
  // Glycemic and cardiometabolic
  { key: 'glucose', name: 'Glucose', loinc: '2345-7', unit: 'mg/dL', price: 8, range: { min: 65, max: 99 }, critical: { low: 40, high: 400 }, description: 'Blood sugar level; fasting for 8 hours is preferred.' },
  { key: 'hemoglobin_a1c', name: 'Hemoglobin A1c', loinc: '4548-4', unit: '%', price: 15, range: { max: 5.6 }, dbs: true, description: 'Average blood glucose over the previous 2-3 months.' },
  { key: 'insulin', name: 'Insulin', loinc: '20448-7', unit: 'uIU/mL', price: 22, range: { min: 2.0, max: 19.6 }, dbs: true, description: 'Fasting insulin, a marker of insulin resistance.' },
  { key: 'cholesterol_total', name: 'Cholesterol, Total', loinc: '2093-3', unit: 'mg/dL', price: 8, range: { max: 199 }, dbs: true, description: 'Total cholesterol.' },
  { key: 'hdl_cholesterol', name: 'HDL Cholesterol', loinc: '2085-9', unit: 'mg/dL', price: 9, range: { min: 40 }, bySex: { male: { min: 40 }, female: { min: 50 } }, dbs: true, description: 'High-density lipoprotein cholesterol.' },
  { key: 'triglycerides', name: 'Triglycerides', loinc: '2571-8', unit: 'mg/dL', price: 8, range: { max: 149 }, dbs: true, description: 'Triglycerides; fasting for 9-12 hours is preferred.' },
  { key: 'ldl_cholesterol', name: 'LDL Cholesterol (calculated)', loinc: '13457-7', unit: 'mg/dL', price: 0, range: { max: 99 }, dbs: true, calculated: true, description: 'Low-density lipoprotein cholesterol, calculated from the lipid panel.' },
  { key: 'non_hdl_cholesterol', name: 'Non-HDL Cholesterol', loinc: '43396-1', unit: 'mg/dL', price: 0, range: { max: 129 }, dbs: true, calculated: true, description: 'Total cholesterol minus HDL cholesterol.' },
  { key: 'apolipoprotein_b', name: 'Apolipoprotein B', loinc: '1884-6', unit: 'mg/dL', price: 25, range: { max: 89 }, description: 'Number of atherogenic lipoprotein particles.' },
  { key: 'hs_crp', name: 'hs-CRP', loinc: '30522-7', unit: 'mg/L', price: 18, range: { max: 3.0 }, dbs: true, description: 'High-sensitivity C-reactive protein, a marker of inflammation.' },
  { key: 'homocysteine', name: 'Homocysteine', loinc: '13965-9', unit: 'umol/L', price: 28, range: { max: 15 }, description: 'Amino acid associated with cardiovascular risk and B-vitamin status.' },
  // Thyroid
  { key: 'tsh', name: 'TSH', loinc: '3016-3', unit: 'mIU/L', price: 15, range: { min: 0.4, max: 4.5 }, dbs: true, description: 'Thyroid-stimulating hormone.' },
  { key: 'free_t4', name: 'Free T4', loinc: '3024-7', unit: 'ng/dL', price: 15, range: { min: 0.8, max: 1.8 }, dbs: true, description: 'Free thyroxine.' },
  { key: 'free_t3', name: 'Free T3', loinc: '3051-0', unit: 'pg/mL', price: 18, range: { min: 2.3, max: 4.2 }, description: 'Free triiodothyronine.' },
  { key: 'tpo_antibodies', name: 'Thyroid Peroxidase Antibodies', loinc: '8099-4', unit: 'IU/mL', price: 20, range: { max: 8 }, description: 'Autoantibodies seen in Hashimoto thyroiditis and Graves disease.' },
  // Vitamins and iron
  { key: 'vitamin_d_25_oh', name: 'Vitamin D, 25-Hydroxy', loinc: '1989-3', unit: 'ng/mL', price: 30, range: { min: 30, max: 100 }, dbs: true, description: 'Vitamin D status.' },
  { key: 'vitamin_b12', name: 'Vitamin B12', loinc: '2132-9', unit: 'pg/mL', price: 14, range: { min: 200, max: 1100 }, description: 'Cobalamin.' },
  { key: 'folate', name: 'Folate', loinc: '2284-8', unit: 'ng/mL', price: 14, range: { min: 5.4 }, description: 'Serum folate.' },
  { key: 'ferritin', name: 'Ferritin', loinc: '2276-4', unit: 'ng/mL', price: 14, range: { min: 16, max: 380 }, bySex: { male: { min: 38, max: 380 }, female: { min: 16, max: 232 } }, description: 'Iron stores.' },
  { key: 'iron', name: 'Iron, Total', loinc: '2498-4', unit: 'ug/dL', price: 9, range: { min: 40, max: 190 }, bySex: { male: { min: 50, max: 180 }, female: { min: 40, max: 190 } }, description: 'Serum iron.' },
  { key: 'tibc', name: 'Iron Binding Capacity (TIBC)', loinc: '2500-7', unit: 'ug/dL', price: 9, range: { min: 250, max: 450 }, description: 'Total iron-binding capacity.' },
  { key: 'iron_saturation', name: 'Iron Saturation', loinc: '2502-3', unit: '%', price: 0, range: { min: 16, max: 48 }, bySex: { male: { min: 20, max: 48 }, female: { min: 16, max: 45 } }, calculated: true, description: 'Transferrin saturation, calculated from iron and TIBC.' },
  // Complete blood count
  { key: 'white_blood_cell_count', name: 'White Blood Cell Count', loinc: '6690-2', unit: '10*3/uL', price: 6, range: { min: 3.8, max: 10.8 }, critical: { low: 2.0, high: 30.0 }, description: 'Leukocytes.' },
  { key: 'red_blood_cell_count', name: 'Red Blood Cell Count', loinc: '789-8', unit: '10*6/uL', price: 6, range: { min: 3.8, max: 5.8 }, bySex: { male: { min: 4.2, max: 5.8 }, female: { min: 3.8, max: 5.1 } }, description: 'Erythrocytes.' },
  { key: 'hemoglobin', name: 'Hemoglobin', loinc: '718-7', unit: 'g/dL', price: 6, range: { min: 11.7, max: 17.1 }, bySex: { male: { min: 13.2, max: 17.1 }, female: { min: 11.7, max: 15.5 } }, critical: { low: 7.0, high: 20.0 }, description: 'Oxygen-carrying protein of red blood cells.' },
  { key: 'hematocrit', name: 'Hematocrit', loinc: '4544-3', unit: '%', price: 6, range: { min: 35.0, max: 50.0 }, bySex: { male: { min: 38.5, max: 50.0 }, female: { min: 35.0, max: 45.0 } }, critical: { low: 20.0, high: 60.0 }, description: 'Share of blood volume taken by red blood cells.' },
  { key: 'mcv', name: 'MCV', loinc: '787-2', unit: 'fL', price: 0, range: { min: 80, max: 100 }, calculated: true, description: 'Mean corpuscular volume.' },
  { key: 'mch', name: 'MCH', loinc: '785-6', unit: 'pg', price: 0, range: { min: 27.0, max: 33.0 }, calculated: true, description: 'Mean corpuscular hemoglobin.' },
  { key: 'mchc', name: 'MCHC', loinc: '786-4', unit: 'g/dL', price: 0, range: { min: 32.0, max: 36.0 }, calculated: true, description: 'Mean corpuscular hemoglobin concentration.' },
  { key: 'rdw', name: 'RDW', loinc: '788-0', unit: '%', price: 0, range: { min: 11.0, max: 15.0 }, calculated: true, description: 'Red cell distribution width.' },
  { key: 'platelet_count', name: 'Platelet Count', loinc: '777-3', unit: '10*3/uL', price: 6, range: { min: 140, max: 400 }, critical: { low: 20, high: 1000 }, description: 'Thrombocytes.' },
  { key: 'absolute_neutrophils', name: 'Absolute Neutrophils', loinc: '751-8', unit: '10*3/uL', price: 0, range: { min: 1.5, max: 7.8 }, critical: { low: 0.5 }, calculated: true, description: 'Neutrophil count from the differential.' },
  { key: 'absolute_lymphocytes', name: 'Absolute Lymphocytes', loinc: '731-0', unit: '10*3/uL', price: 0, range: { min: 0.85, max: 3.9 }, calculated: true, description: 'Lymphocyte count from the differential.' },
  // Metabolic panel, kidney and liver
  { key: 'creatinine', name: 'Creatinine', loinc: '2160-0', unit: 'mg/dL', price: 7, range: { min: 0.5, max: 1.3 }, bySex: { male: { min: 0.7, max: 1.3 }, female: { min: 0.5, max: 1.1 } }, description: 'Kidney function.' },
  { key: 'bun', name: 'Urea Nitrogen (BUN)', loinc: '3094-0', unit: 'mg/dL', price: 7, range: { min: 7, max: 25 }, description: 'Kidney function and protein metabolism.' },
  { key: 'egfr', name: 'eGFR', loinc: '98979-8', unit: 'mL/min/1.73m2', price: 0, range: { min: 60 }, calculated: true, description: 'Estimated glomerular filtration rate (CKD-EPI 2021), from creatinine.' },
  { key: 'sodium', name: 'Sodium', loinc: '2951-2', unit: 'mmol/L', price: 6, range: { min: 135, max: 146 }, critical: { low: 120, high: 160 }, description: 'Electrolyte.' },
  { key: 'potassium', name: 'Potassium', loinc: '2823-3', unit: 'mmol/L', price: 6, range: { min: 3.5, max: 5.3 }, critical: { low: 2.8, high: 6.2 }, description: 'Electrolyte.' },
  { key: 'chloride', name: 'Chloride', loinc: '2075-0', unit: 'mmol/L', price: 6, range: { min: 98, max: 110 }, description: 'Electrolyte.' },
  { key: 'carbon_dioxide', name: 'Carbon Dioxide', loinc: '2028-9', unit: 'mmol/L', price: 6, range: { min: 20, max: 32 }, critical: { low: 10, high: 40 }, description: 'Total CO2 (bicarbonate).' },
  { key: 'calcium', name: 'Calcium', loinc: '17861-6', unit: 'mg/dL', price: 6, range: { min: 8.6, max: 10.3 }, critical: { low: 6.0, high: 13.0 }, description: 'Serum calcium.' },
  { key: 'protein_total', name: 'Protein, Total', loinc: '2885-2', unit: 'g/dL', price: 6, range: { min: 6.1, max: 8.1 }, description: 'Total serum protein.' },
  { key: 'albumin', name: 'Albumin', loinc: '1751-7', unit: 'g/dL', price: 6, range: { min: 3.6, max: 5.1 }, description: 'Main serum protein, made by the liver.' },
  { key: 'globulin', name: 'Globulin', loinc: '10834-0', unit: 'g/dL', price: 0, range: { min: 1.9, max: 3.7 }, calculated: true, description: 'Total protein minus albumin.' },
  { key: 'bilirubin_total', name: 'Bilirubin, Total', loinc: '1975-2', unit: 'mg/dL', price: 6, range: { min: 0.2, max: 1.2 }, description: 'Liver function and red cell breakdown.' },
  { key: 'alkaline_phosphatase', name: 'Alkaline Phosphatase', loinc: '6768-6', unit: 'U/L', price: 6, range: { min: 36, max: 130 }, description: 'Liver and bone enzyme.' },
  { key: 'ast', name: 'AST', loinc: '1920-8', unit: 'U/L', price: 6, range: { min: 10, max: 40 }, bySex: { male: { min: 10, max: 40 }, female: { min: 10, max: 30 } }, description: 'Aspartate aminotransferase, a liver enzyme.' },
  { key: 'alt', name: 'ALT', loinc: '1742-6', unit: 'U/L', price: 6, range: { min: 6, max: 46 }, bySex: { male: { min: 9, max: 46 }, female: { min: 6, max: 29 } }, description: 'Alanine aminotransferase, a liver enzyme.' },
  { key: 'ggt', name: 'GGT', loinc: '2324-2', unit: 'U/L', price: 9, range: { min: 3, max: 95 }, bySex: { male: { min: 3, max: 95 }, female: { min: 3, max: 70 } }, description: 'Gamma-glutamyl transferase, a liver enzyme.' },
  { key: 'magnesium', name: 'Magnesium', loinc: '19123-9', unit: 'mg/dL', price: 9, range: { min: 1.5, max: 2.5 }, critical: { low: 1.0, high: 4.9 }, description: 'Serum magnesium.' },
  { key: 'phosphorus', name: 'Phosphorus', loinc: '2777-1', unit: 'mg/dL', price: 8, range: { min: 2.5, max: 4.5 }, critical: { low: 1.0 }, description: 'Serum phosphate.' },
  { key: 'uric_acid', name: 'Uric Acid', loinc: '3084-1', unit: 'mg/dL', price: 8, range: { min: 2.5, max: 8.0 }, bySex: { male: { min: 4.0, max: 8.0 }, female: { min: 2.5, max: 7.0 } }, description: 'Purine breakdown product; gout risk.' },
  // Hormones
  { key: 'testosterone_total', name: 'Testosterone, Total', loinc: '2986-8', unit: 'ng/dL', price: 25, bySex: { male: { min: 250, max: 827 }, female: { min: 2, max: 45 } }, dbs: true, description: 'Total testosterone; morning draw preferred.' },
  { key: 'testosterone_free', name: 'Testosterone, Free', loinc: '2991-8', unit: 'pg/mL', price: 35, description: 'Unbound testosterone; ranges depend on assay, age and sex.' },
  { key: 'shbg', name: 'Sex Hormone Binding Globulin', loinc: '13967-5', unit: 'nmol/L', price: 28, bySex: { male: { min: 10, max: 50 }, female: { min: 17, max: 124 } }, description: 'Binds testosterone and estradiol in blood.' },
  { key: 'estradiol', name: 'Estradiol', loinc: '2243-4', unit: 'pg/mL', price: 28, bySex: { male: { max: 39 } }, dbs: true, description: 'Main estrogen; in women the range depends on the cycle phase.' },
  { key: 'progesterone', name: 'Progesterone', loinc: '2839-9', unit: 'ng/mL', price: 25, description: 'Ranges depend on sex and cycle phase.' },
  { key: 'lh', name: 'LH', loinc: '10501-5', unit: 'mIU/mL', price: 22, bySex: { male: { min: 1.5, max: 9.3 } }, description: 'Luteinizing hormone; in women the range depends on the cycle phase.' },
  { key: 'fsh', name: 'FSH', loinc: '15067-2', unit: 'mIU/mL', price: 22, bySex: { male: { min: 1.4, max: 12.8 } }, description: 'Follicle-stimulating hormone; in women the range depends on the cycle phase.' },
  { key: 'prolactin', name: 'Prolactin', loinc: '2842-3', unit: 'ng/mL', price: 22, bySex: { male: { min: 2.0, max: 18.0 }, female: { min: 3.0, max: 30.0 } }, description: 'Pituitary hormone.' },
  { key: 'dhea_sulfate', name: 'DHEA Sulfate', loinc: '2191-5', unit: 'ug/dL', price: 25, dbs: true, description: 'Adrenal androgen; ranges depend on age and sex.' },
  { key: 'cortisol', name: 'Cortisol, AM', loinc: '2143-6', unit: 'ug/dL', price: 20, range: { min: 4.0, max: 22.0 }, description: 'Morning serum cortisol (draw 7-9 AM).' },
  { key: 'psa_total', name: 'PSA, Total', loinc: '2857-1', unit: 'ng/mL', price: 20, range: { max: 4.0 }, dbs: true, description: 'Prostate-specific antigen.' },
];

/** LOINC long common names of the codes above. */
export const SEED_LOINC_NAMES: Record<string, string> = {
  '2345-7': 'Glucose [Mass/volume] in Serum or Plasma',
  '4548-4': 'Hemoglobin A1c/Hemoglobin.total in Blood',
  '20448-7': 'Insulin [Units/volume] in Serum or Plasma',
  '2093-3': 'Cholesterol [Mass/volume] in Serum or Plasma',
  '2085-9': 'Cholesterol in HDL [Mass/volume] in Serum or Plasma',
  '2571-8': 'Triglyceride [Mass/volume] in Serum or Plasma',
  '13457-7': 'Cholesterol in LDL [Mass/volume] in Serum or Plasma by calculation',
  '43396-1': 'Cholesterol non HDL [Mass/volume] in Serum or Plasma',
  '1884-6': 'Apolipoprotein B [Mass/volume] in Serum or Plasma',
  '30522-7': 'C reactive protein [Mass/volume] in Serum or Plasma by High sensitivity method',
  '13965-9': 'Homocysteine [Moles/volume] in Serum or Plasma',
  '3016-3': 'Thyrotropin [Units/volume] in Serum or Plasma',
  '3024-7': 'Thyroxine (T4) free [Mass/volume] in Serum or Plasma',
  '3051-0': 'Triiodothyronine (T3) Free [Mass/volume] in Serum or Plasma',
  '8099-4': 'Thyroperoxidase Ab [Units/volume] in Serum or Plasma',
  '1989-3': '25-hydroxyvitamin D3 [Mass/volume] in Serum or Plasma',
  '2132-9': 'Cobalamin (Vitamin B12) [Mass/volume] in Serum or Plasma',
  '2284-8': 'Folate [Mass/volume] in Serum or Plasma',
  '2276-4': 'Ferritin [Mass/volume] in Serum or Plasma',
  '2498-4': 'Iron [Mass/volume] in Serum or Plasma',
  '2500-7': 'Iron binding capacity [Mass/volume] in Serum or Plasma',
  '2502-3': 'Iron saturation [Mass Fraction] in Serum or Plasma',
  '6690-2': 'Leukocytes [#/volume] in Blood by Automated count',
  '789-8': 'Erythrocytes [#/volume] in Blood by Automated count',
  '718-7': 'Hemoglobin [Mass/volume] in Blood',
  '4544-3': 'Hematocrit [Volume Fraction] of Blood by Automated count',
  '787-2': 'MCV [Entitic volume] by Automated count',
  '785-6': 'MCH [Entitic mass] by Automated count',
  '786-4': 'MCHC [Mass/volume] by Automated count',
  '788-0': 'Erythrocyte distribution width [Ratio] by Automated count',
  '777-3': 'Platelets [#/volume] in Blood by Automated count',
  '751-8': 'Neutrophils [#/volume] in Blood by Automated count',
  '731-0': 'Lymphocytes [#/volume] in Blood by Automated count',
  '2160-0': 'Creatinine [Mass/volume] in Serum or Plasma',
  '3094-0': 'Urea nitrogen [Mass/volume] in Serum or Plasma',
  '98979-8': 'Glomerular filtration rate/1.73 sq M.predicted [Volume Rate/Area] in Serum, Plasma or Blood by Creatinine-based formula (CKD-EPI 2021)',
  '2951-2': 'Sodium [Moles/volume] in Serum or Plasma',
  '2823-3': 'Potassium [Moles/volume] in Serum or Plasma',
  '2075-0': 'Chloride [Moles/volume] in Serum or Plasma',
  '2028-9': 'Carbon dioxide, total [Moles/volume] in Serum or Plasma',
  '17861-6': 'Calcium [Mass/volume] in Serum or Plasma',
  '2885-2': 'Protein [Mass/volume] in Serum or Plasma',
  '1751-7': 'Albumin [Mass/volume] in Serum or Plasma',
  '10834-0': 'Globulin [Mass/volume] in Serum by calculation',
  '1975-2': 'Bilirubin.total [Mass/volume] in Serum or Plasma',
  '6768-6': 'Alkaline phosphatase [Enzymatic activity/volume] in Serum or Plasma',
  '1920-8': 'Aspartate aminotransferase [Enzymatic activity/volume] in Serum or Plasma',
  '1742-6': 'Alanine aminotransferase [Enzymatic activity/volume] in Serum or Plasma',
  '2324-2': 'Gamma glutamyl transferase [Enzymatic activity/volume] in Serum or Plasma',
  '19123-9': 'Magnesium [Mass/volume] in Serum or Plasma',
  '2777-1': 'Phosphate [Mass/volume] in Serum or Plasma',
  '3084-1': 'Urate [Mass/volume] in Serum or Plasma',
  '2986-8': 'Testosterone [Mass/volume] in Serum or Plasma',
  '2991-8': 'Testosterone Free [Mass/volume] in Serum or Plasma',
  '13967-5': 'Sex hormone binding globulin [Moles/volume] in Serum or Plasma',
  '2243-4': 'Estradiol (E2) [Mass/volume] in Serum or Plasma',
  '2839-9': 'Progesterone [Mass/volume] in Serum or Plasma',
  '10501-5': 'Lutropin [Units/volume] in Serum or Plasma',
  '15067-2': 'Follitropin [Units/volume] in Serum or Plasma',
  '2842-3': 'Prolactin [Mass/volume] in Serum or Plasma',
  '2191-5': 'Dehydroepiandrosterone sulfate [Mass/volume] in Serum or Plasma',
  '2143-6': 'Cortisol [Mass/volume] in Serum or Plasma',
  '2857-1': 'Prostate specific Ag [Mass/volume] in Serum or Plasma',
};

export const SEED_PANELS = [
  {
    key: 'comprehensive_metabolic_panel',
    name: 'Comprehensive Metabolic Panel',
    price: 18,
    description: 'Glucose, kidney function, electrolytes, proteins and liver enzymes; fasting preferred.',
    members: [
      'glucose',
      'bun',
      'creatinine',
      'egfr',
      'sodium',
      'potassium',
      'chloride',
      'carbon_dioxide',
      'calcium',
      'protein_total',
      'albumin',
      'globulin',
      'bilirubin_total',
      'alkaline_phosphatase',
      'ast',
      'alt',
    ],
  },
  {
    key: 'lipid_panel',
    name: 'Lipid Panel',
    price: 20,
    description: 'Total, HDL, LDL and non-HDL cholesterol with triglycerides.',
    members: ['cholesterol_total', 'hdl_cholesterol', 'triglycerides', 'ldl_cholesterol', 'non_hdl_cholesterol'],
  },
  {
    key: 'complete_blood_count',
    name: 'Complete Blood Count with Differential',
    price: 14,
    description: 'Red and white blood cells, hemoglobin, hematocrit, indices, platelets and differential.',
    members: [
      'white_blood_cell_count',
      'red_blood_cell_count',
      'hemoglobin',
      'hematocrit',
      'mcv',
      'mch',
      'mchc',
      'rdw',
      'platelet_count',
      'absolute_neutrophils',
      'absolute_lymphocytes',
    ],
  },
] as const;

export interface SeedMarker {
  id: number;
  lab_id: number;
  key: string;
  name: string;
  description: string;
  provider_id: string;
  type: 'biomarker' | 'panel';
  unit: string | null;
  price: string;
  a_la_carte_enabled: boolean;
  loinc: string | null;
  analyte: Analyte | null;
  members: number[];
}

/** Every marker of every lab: the four full-service labs carry all analytes, the test-kit lab the DBS ones. */
export function seedMarkers(): SeedMarker[] {
  const markers: SeedMarker[] = [];
  for (const lab of SEED_LABS) {
    const testkitOnly = lab.collection_methods.every((method) => method === 'testkit');
    const factor = LAB_PRICE_FACTOR[lab.id] ?? 1;
    const byKey = new Map<string, number>();
    SEED_ANALYTES.forEach((analyte, index) => {
      if (testkitOnly && !analyte.dbs) return;
      const n = index + 1;
      const id = lab.id * 1000 + n;
      byKey.set(analyte.key, id);
      markers.push({
        id,
        lab_id: lab.id,
        key: analyte.key,
        name: analyte.name,
        description: analyte.description,
        provider_id: `${lab.id}${String(n).padStart(4, '0')}`,
        type: 'biomarker',
        unit: analyte.unit,
        price: (analyte.price * factor).toFixed(2),
        a_la_carte_enabled: !analyte.calculated,
        loinc: analyte.loinc,
        analyte,
        members: [],
      });
    });
    SEED_PANELS.forEach((panel, index) => {
      const members = panel.members.map((key) => byKey.get(key));
      if (members.some((id) => id === undefined)) return;
      const n = 900 + index + 1;
      markers.push({
        id: lab.id * 1000 + n,
        lab_id: lab.id,
        key: panel.key,
        name: panel.name,
        description: panel.description,
        provider_id: `${lab.id}${String(n).padStart(4, '0')}`,
        type: 'panel',
        unit: null,
        price: (panel.price * factor).toFixed(2),
        a_la_carte_enabled: true,
        loinc: null,
        analyte: null,
        members: members as number[],
      });
    });
  }
  return markers;
}

const labId = (slug: string) => {
  const lab = SEED_LABS.find((candidate) => candidate.slug === slug);
  if (!lab) throw new Error(`unknown seed lab ${slug}`);
  return lab.id;
};

/** Global lab tests (visible to every team), at least one per collection method. */
export const SEED_LAB_TESTS = [
  {
    id: '1ab7e570-0000-4000-8000-000000000001',
    name: 'Lipid Panel (test kit)',
    lab: 'us_biotek',
    method: 'testkit',
    sample_type: 'dried_blood_spot',
    fasting: true,
    markers: ['lipid_panel'],
    price: 49,
    description: 'At-home finger-prick lipid panel on a dried blood spot card.',
  },
  {
    id: '1ab7e570-0000-4000-8000-000000000002',
    name: 'Vitamin D and HbA1c (test kit)',
    lab: 'us_biotek',
    method: 'testkit',
    sample_type: 'dried_blood_spot',
    fasting: false,
    markers: ['vitamin_d_25_oh', 'hemoglobin_a1c'],
    price: 69,
    description: 'At-home finger-prick vitamin D and HbA1c.',
  },
  {
    id: '1ab7e570-0000-4000-8000-000000000003',
    name: 'Comprehensive Metabolic Panel (walk-in)',
    lab: 'quest',
    method: 'walk_in_test',
    sample_type: 'serum',
    fasting: true,
    markers: ['comprehensive_metabolic_panel'],
    price: 35,
    description: 'CMP drawn at a patient service center.',
  },
  {
    id: '1ab7e570-0000-4000-8000-000000000004',
    name: 'Complete Blood Count (walk-in)',
    lab: 'labcorp',
    method: 'walk_in_test',
    sample_type: 'serum',
    fasting: false,
    markers: ['complete_blood_count'],
    price: 29,
    description: 'CBC with differential drawn at a patient service center.',
  },
  {
    id: '1ab7e570-0000-4000-8000-000000000005',
    name: 'Essential Wellness Panel (walk-in)',
    lab: 'sonora_quest',
    method: 'walk_in_test',
    sample_type: 'serum',
    fasting: true,
    markers: ['comprehensive_metabolic_panel', 'complete_blood_count', 'lipid_panel', 'tsh'],
    price: 79,
    description: 'CMP, CBC, lipid panel and TSH.',
  },
  {
    id: '1ab7e570-0000-4000-8000-000000000006',
    name: 'Hormone Panel (at-home phlebotomy)',
    lab: 'labcorp',
    method: 'at_home_phlebotomy',
    sample_type: 'serum',
    fasting: false,
    markers: ['testosterone_total', 'testosterone_free', 'shbg', 'estradiol', 'lh', 'fsh', 'prolactin', 'dhea_sulfate'],
    price: 149,
    description: 'Sex hormones and pituitary hormones drawn at home by a phlebotomist.',
  },
  {
    id: '1ab7e570-0000-4000-8000-000000000007',
    name: 'Thyroid Panel (at-home phlebotomy)',
    lab: 'quest',
    method: 'at_home_phlebotomy',
    sample_type: 'serum',
    fasting: false,
    markers: ['tsh', 'free_t4', 'free_t3', 'tpo_antibodies'],
    price: 89,
    description: 'TSH, free T4, free T3 and TPO antibodies drawn at home.',
  },
  {
    id: '1ab7e570-0000-4000-8000-000000000008',
    name: 'Heart Health Panel (at-home phlebotomy)',
    lab: 'bioreference',
    method: 'at_home_phlebotomy',
    sample_type: 'serum',
    fasting: true,
    markers: ['lipid_panel', 'apolipoprotein_b', 'hs_crp', 'homocysteine'],
    price: 99,
    description: 'Lipids, ApoB, hs-CRP and homocysteine drawn at home.',
  },
  {
    id: '1ab7e570-0000-4000-8000-000000000009',
    name: 'Metabolic Health Panel (walk-in)',
    lab: 'bioreference',
    method: 'walk_in_test',
    sample_type: 'serum',
    fasting: true,
    markers: ['glucose', 'hemoglobin_a1c', 'insulin', 'lipid_panel'],
    price: 69,
    description: 'Glucose, HbA1c, fasting insulin and lipid panel.',
  },
  {
    id: '1ab7e570-0000-4000-8000-00000000000a',
    name: 'Iron Panel (walk-in, retired)',
    lab: 'quest',
    method: 'walk_in_test',
    sample_type: 'serum',
    fasting: false,
    markers: ['iron', 'tibc', 'ferritin'],
    price: 45,
    description: 'Retired: order the markers individually instead.',
    inactive: true,
  },
] as const;

const ALL_BILLING = ['client_bill', 'commercial_insurance', 'patient_bill_passthrough', 'patient_bill'];

/**
 * Lab accounts. The not-delegated platform accounts (environment NULL) let any team order at
 * any lab. The sandbox-only accounts cover every delegation kind and status so teams can try the
 * physician rule and account selection without owning an account.
 */
export const SEED_LAB_ACCOUNTS = [
  ...SEED_LABS.map((lab, index) => ({
    id: `1ab0acc0-0000-4000-8000-00000000000${index + 1}`,
    lab: lab.slug,
    environment: null,
    status: 'active',
    delegated_flow: 'not_delegated',
    provider_account_id: `LF-${lab.slug.toUpperCase()}-PLATFORM`,
    account_name: `labflow platform account (${lab.name})`,
    default_clinical_notes: null,
    allowed_billing: (lab.collection_methods as readonly string[]).includes('testkit') ? ['client_bill'] : ALL_BILLING,
  })),
  {
    id: '1ab0acc0-0000-4000-8000-000000000101',
    lab: 'quest',
    environment: 'sandbox',
    status: 'active',
    delegated_flow: 'order_delegated',
    provider_account_id: 'LF-QUEST-SBX-OD',
    account_name: 'Sandbox Quest account (order delegated)',
    default_clinical_notes: 'Ordering physician supplied by the client.',
    allowed_billing: ['client_bill', 'commercial_insurance'],
  },
  {
    id: '1ab0acc0-0000-4000-8000-000000000102',
    lab: 'labcorp',
    environment: 'sandbox',
    status: 'active',
    delegated_flow: 'fully_delegated',
    provider_account_id: 'LF-LABCORP-SBX-FD',
    account_name: 'Sandbox Labcorp account (fully delegated)',
    default_clinical_notes: null,
    allowed_billing: ALL_BILLING,
  },
  {
    id: '1ab0acc0-0000-4000-8000-000000000103',
    lab: 'bioreference',
    environment: 'sandbox',
    status: 'active',
    delegated_flow: 'result_delegated',
    provider_account_id: 'LF-BIOREFERENCE-SBX-RD',
    account_name: 'Sandbox BioReference account (result delegated)',
    default_clinical_notes: null,
    allowed_billing: ['client_bill'],
  },
  {
    id: '1ab0acc0-0000-4000-8000-000000000104',
    lab: 'sonora_quest',
    environment: 'sandbox',
    status: 'pending',
    delegated_flow: 'order_delegated',
    provider_account_id: 'LF-SONORA-SBX-OD',
    account_name: 'Sandbox Sonora Quest account (order delegated, pending)',
    default_clinical_notes: null,
    allowed_billing: ['client_bill'],
  },
  {
    id: '1ab0acc0-0000-4000-8000-000000000105',
    lab: 'quest',
    environment: 'sandbox',
    status: 'suspended',
    delegated_flow: 'fully_delegated',
    provider_account_id: 'LF-QUEST-SBX-FD',
    account_name: 'Sandbox Quest account (fully delegated, suspended)',
    default_clinical_notes: null,
    allowed_billing: ['client_bill'],
  },
  {
    id: '1ab0acc0-0000-4000-8000-000000000106',
    lab: 'labcorp',
    environment: 'sandbox',
    status: 'ready_to_launch',
    delegated_flow: 'not_delegated',
    provider_account_id: 'LF-LABCORP-SBX-ND',
    account_name: 'Sandbox Labcorp account (ready to launch)',
    default_clinical_notes: null,
    allowed_billing: ['client_bill', 'patient_bill'],
  },
  {
    id: '1ab0acc0-0000-4000-8000-000000000107',
    lab: 'bioreference',
    environment: 'sandbox',
    status: 'pending',
    delegated_flow: 'fully_delegated',
    provider_account_id: 'LF-BIOREFERENCE-SBX-FD',
    account_name: 'Sandbox BioReference account (fully delegated, pending)',
    default_clinical_notes: null,
    allowed_billing: ['client_bill'],
  },
] as const;

export const slugify = (value: string) =>
  value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

export class LabCatalogSeed1763790002001 implements MigrationInterface {
  name = 'LabCatalogSeed1763790002001';

  async up(db: QueryRunner): Promise<void> {
    for (const lab of SEED_LABS) {
      await db.query(
        `INSERT INTO labs (id, slug, name, first_line_address, city, state, zipcode, collection_methods, sample_types, supports_delegated_accounts)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          lab.id,
          lab.slug,
          lab.name,
          lab.first_line_address,
          lab.city,
          lab.state,
          lab.zipcode,
          lab.collection_methods,
          lab.sample_types,
          lab.supports_delegated_accounts,
        ],
      );
    }

    const loincIds = new Map<string, number>();
    SEED_ANALYTES.forEach((analyte, index) => loincIds.set(analyte.loinc, index + 1));
    for (const analyte of SEED_ANALYTES) {
      const name = SEED_LOINC_NAMES[analyte.loinc];
      if (!name) throw new Error(`no LOINC name for ${analyte.loinc}`);
      await db.query(`INSERT INTO loinc_codes (id, code, name, slug, unit) VALUES ($1, $2, $3, $4, $5)`, [
        loincIds.get(analyte.loinc),
        analyte.loinc,
        name,
        slugify(name),
        analyte.unit,
      ]);
    }

    const markers = seedMarkers();
    for (const marker of markers) {
      const analyte = marker.analyte;
      await db.query(
        `INSERT INTO lab_markers (id, lab_id, name, slug, description, provider_id, type, unit, price, a_la_carte_enabled,
             common_tat_days, worst_case_tat_days, loinc_id, reference_min, reference_max, critical_low, critical_high, reference_ranges_by_sex)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
        [
          marker.id,
          marker.lab_id,
          marker.name,
          marker.key,
          marker.description,
          marker.provider_id,
          marker.type,
          marker.unit,
          marker.price,
          marker.a_la_carte_enabled,
          marker.lab_id === 5 ? 5 : 2,
          marker.lab_id === 5 ? 10 : 5,
          marker.loinc ? loincIds.get(marker.loinc) : null,
          analyte?.range?.min ?? null,
          analyte?.range?.max ?? null,
          analyte?.critical?.low ?? null,
          analyte?.critical?.high ?? null,
          analyte?.bySex ? JSON.stringify(analyte.bySex) : null,
        ],
      );
    }
    for (const panel of markers.filter((marker) => marker.type === 'panel')) {
      for (const [position, memberId] of panel.members.entries()) {
        await db.query(`INSERT INTO lab_panel_members (panel_id, member_id, position) VALUES ($1, $2, $3)`, [panel.id, memberId, position]);
      }
    }

    for (const test of SEED_LAB_TESTS) {
      const lab = labId(test.lab);
      const inactive = 'inactive' in test && test.inactive;
      await db.query(
        `INSERT INTO lab_tests (id, team_id, environment, lab_id, slug, name, description, sample_type, method, price, is_active, status,
             fasting, has_collection_instructions, common_tat_days, worst_case_tat_days)
           VALUES ($1, NULL, NULL, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          test.id,
          lab,
          slugify(test.name),
          test.name,
          test.description,
          test.sample_type,
          test.method,
          test.price.toFixed(2),
          !inactive,
          inactive ? 'inactive' : 'active',
          test.fasting,
          test.method === 'testkit',
          test.method === 'testkit' ? 5 : 2,
          test.method === 'testkit' ? 10 : 5,
        ],
      );
      for (const [position, key] of test.markers.entries()) {
        const marker = markers.find((candidate) => candidate.lab_id === lab && candidate.key === key);
        if (!marker) throw new Error(`seed lab test ${test.name}: no marker ${key} at ${test.lab}`);
        await db.query(`INSERT INTO lab_test_markers (lab_test_id, marker_id, position) VALUES ($1, $2, $3)`, [test.id, marker.id, position]);
      }
    }

    for (const account of SEED_LAB_ACCOUNTS) {
      await db.query(
        `INSERT INTO lab_accounts (id, team_id, environment, lab_id, status, delegated_flow, provider_account_id, account_name,
             default_clinical_notes, allowed_billing, team_id_allowlist)
           VALUES ($1, NULL, $2, $3, $4, $5, $6, $7, $8, $9, '{}')`,
        [
          account.id,
          account.environment,
          labId(account.lab),
          account.status,
          account.delegated_flow,
          account.provider_account_id,
          account.account_name,
          account.default_clinical_notes,
          [...account.allowed_billing],
        ],
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM lab_accounts WHERE id = ANY($1)`, [SEED_LAB_ACCOUNTS.map((account) => account.id)]);
    await db.query(`DELETE FROM lab_tests WHERE id = ANY($1)`, [SEED_LAB_TESTS.map((test) => test.id)]);
    const markerIds = seedMarkers().map((marker) => marker.id);
    await db.query(`DELETE FROM lab_panel_members WHERE panel_id = ANY($1)`, [markerIds]);
    await db.query(`DELETE FROM lab_markers WHERE id = ANY($1)`, [markerIds]);
    await db.query(`DELETE FROM loinc_codes WHERE code = ANY($1)`, [SEED_ANALYTES.map((analyte) => analyte.loinc)]);
    await db.query(`DELETE FROM labs WHERE id = ANY($1)`, [SEED_LABS.map((lab) => lab.id)]);
  }
}
