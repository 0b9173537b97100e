import { type Entry, SP, B, P, toCurated } from './types';

/**
 * Clinical chemistry: glucose and diabetes, kidney function and electrolytes, proteins, liver and
 * pancreas enzymes. An `(SI)` entry is the same analyte reported in moles (mmol/L, µmol/L): LOINC
 * gives it its own code, and labs outside the US print the same names, so it carries the same
 * aliases and the printed unit decides between the two.
 */
// prettier-ignore
const ENTRIES: Entry[] = [
  // Glucose and diabetes
  ['2345-7', 'Glucose', 'Glucose [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Glucose, Serum', 'Glucose, Plasma', 'Blood Sugar', 'GLU', 'Glucose, Random', 'Random Glucose', 'Plasma Glucose']],
  ['14749-6', 'Glucose (SI)', 'Glucose [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Glucose', 'Glucose, Serum', 'Glucose, Plasma', 'Blood Sugar', 'GLU', 'Glucose, Random', 'Random Glucose', 'Plasma Glucose']],
  ['1558-6', 'Glucose, Fasting', 'Fasting glucose [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Fasting Glucose', 'Fasting Blood Sugar', 'FBS', 'FBG', 'Fasting Plasma Glucose', 'FPG']],
  ['14771-0', 'Glucose, Fasting (SI)', 'Fasting glucose [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Glucose, Fasting', 'Fasting Glucose', 'Fasting Blood Sugar', 'FBS', 'FBG', 'Fasting Plasma Glucose', 'FPG']],
  ['2339-0', 'Glucose, Blood', 'Glucose [Mass/volume] in Blood', 'mg/dL', B, ['Whole Blood Glucose', 'Glucose, Whole Blood']],
  ['15074-8', 'Glucose, Blood (SI)', 'Glucose [Moles/volume] in Blood', 'mmol/L', B, ['Glucose, Blood', 'Whole Blood Glucose', 'Glucose, Whole Blood']],
  ['20436-2', 'Glucose, 2 Hour Post Dose', 'Glucose [Mass/volume] in Serum or Plasma --2 hours post dose glucose', 'mg/dL', SP, ['Glucose, 2 Hour', '2 Hour Glucose', 'Glucose 2 hr Post Glucola', 'OGTT 2 Hour', 'Glucose Tolerance 2 Hour']],
  ['14759-5', 'Glucose, 2 Hour Post Dose (SI)', 'Glucose [Moles/volume] in Serum or Plasma --2 hours post dose glucose', 'mmol/L', SP, ['Glucose, 2 Hour Post Dose', 'Glucose, 2 Hour', '2 Hour Glucose', 'OGTT 2 Hour', 'Glucose Tolerance 2 Hour']],
  ['4548-4', 'Hemoglobin A1c', 'Hemoglobin A1c/Hemoglobin.total in Blood', '%', B, ['HbA1c', 'A1c', 'Hgb A1c', 'HgbA1c', 'Glycated Hemoglobin', 'Glycohemoglobin', 'Glycosylated Hemoglobin', 'Haemoglobin A1c', 'Glycated Haemoglobin']],
  ['17856-6', 'Hemoglobin A1c (HPLC)', 'Hemoglobin A1c/Hemoglobin.total in Blood by HPLC', '%', B, ['HbA1c by HPLC', 'Hemoglobin A1c by HPLC']],
  ['59261-8', 'Hemoglobin A1c (IFCC)', 'Hemoglobin A1c/Hemoglobin.total in Blood by IFCC protocol', 'mmol/mol', B, ['HbA1c IFCC', 'HbA1c', 'A1c', 'Hemoglobin A1c', 'Haemoglobin A1c', 'Glycated Haemoglobin', 'Glycated Hemoglobin']],
  ['27353-2', 'Estimated Average Glucose', 'Glucose mean value [Mass/volume] in Blood Estimated from glycated hemoglobin', 'mg/dL', B, ['eAG', 'Estimated Avg Glucose', 'Mean Plasma Glucose']],
  ['53553-4', 'Estimated Average Glucose (SI)', 'Glucose mean value [Moles/volume] in Blood Estimated from glycated hemoglobin', 'mmol/L', B, ['Estimated Average Glucose', 'eAG', 'Estimated Avg Glucose', 'Mean Plasma Glucose']],
  ['20448-7', 'Insulin', 'Insulin [Units/volume] in Serum or Plasma', 'uIU/mL', SP, ['Insulin, Fasting', 'Fasting Insulin', 'Insulin, Serum']],
  ['14796-7', 'Insulin (SI)', 'Insulin [Moles/volume] in Serum or Plasma', 'pmol/L', SP, ['Insulin', 'Insulin, Fasting', 'Fasting Insulin', 'Insulin, Serum']],
  ['1986-9', 'C-Peptide', 'C peptide [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['C Peptide', 'C-Peptide, Serum']],
  ['14633-2', 'C-Peptide (SI)', 'C peptide [Moles/volume] in Serum or Plasma', 'pmol/L', SP, ['C-Peptide', 'C Peptide', 'C-Peptide, Serum']],
  ['15069-8', 'Fructosamine', 'Fructosamine [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Fructosamine, Serum']],
  ['2524-7', 'Lactate', 'Lactate [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Lactic Acid', 'Lactate, Plasma']],
  // Kidney function
  ['3094-0', 'Urea Nitrogen (BUN)', 'Urea nitrogen [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['BUN', 'Blood Urea Nitrogen', 'Urea Nitrogen', 'Urea N']],
  ['22664-7', 'Urea', 'Urea [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Urea, Serum', 'Serum Urea', 'Plasma Urea']],
  ['2160-0', 'Creatinine', 'Creatinine [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Creatinine, Serum', 'CREA', 'Creat', 'Serum Creatinine']],
  ['14682-9', 'Creatinine (SI)', 'Creatinine [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Creatinine', 'Creatinine, Serum', 'CREA', 'Creat', 'Serum Creatinine']],
  ['38483-4', 'Creatinine, Blood', 'Creatinine [Mass/volume] in Blood', 'mg/dL', B, ['Whole Blood Creatinine', 'Creatinine, Whole Blood']],
  ['3097-3', 'BUN/Creatinine Ratio', 'Urea nitrogen/Creatinine [Mass Ratio] in Serum or Plasma', 'ratio', SP, ['BUN/Creat Ratio', 'BUN:Creatinine Ratio', 'Urea Nitrogen/Creatinine Ratio']],
  ['98979-8', 'eGFR', 'Glomerular filtration rate/1.73 sq M.predicted [Volume Rate/Area] in Serum, Plasma or Blood by Creatinine-based formula (CKD-EPI 2021)', 'mL/min/1.73m2', SP, ['eGFR (CKD-EPI 2021)', 'Estimated GFR', 'GFR, Estimated', 'eGFR CKD-EPI', 'Glomerular Filtration Rate']],
  ['62238-1', 'eGFR (CKD-EPI 2009)', 'Glomerular filtration rate/1.73 sq M.predicted [Volume Rate/Area] in Serum, Plasma or Blood by Creatinine-based formula (CKD-EPI)', 'mL/min/1.73m2', SP, []],
  ['33914-3', 'eGFR (MDRD)', 'Glomerular filtration rate [Volume Rate/Area] in Serum or Plasma by Creatinine-based formula (MDRD)/1.73 sq M', 'mL/min/1.73m2', SP, ['eGFR MDRD']],
  ['48642-3', 'eGFR Non-African American', 'Glomerular filtration rate/1.73 sq M predicted among non-blacks by Creatinine-based formula (MDRD)', 'mL/min/1.73m2', SP, ['eGFR Non-Afr. American']],
  ['48643-1', 'eGFR African American', 'Glomerular filtration rate/1.73 sq M predicted among blacks by Creatinine-based formula (MDRD)', 'mL/min/1.73m2', SP, ['eGFR Afr. American']],
  ['33863-2', 'Cystatin C', 'Cystatin C [Mass/volume] in Serum or Plasma', 'mg/L', SP, ['Cystatin C, Serum']],
  ['2692-2', 'Osmolality', 'Osmolality of Serum or Plasma', 'mosm/kg', SP, ['Serum Osmolality', 'Osmolality, Serum']],
  ['18182-6', 'Osmolality, Calculated', 'Osmolality of Serum or Plasma by calculation', 'mosm/kg', SP, ['Calculated Osmolality', 'Osmolality (Calculated)']],
  // Electrolytes and minerals
  ['2951-2', 'Sodium', 'Sodium [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Na', 'Sodium, Serum']],
  ['2823-3', 'Potassium', 'Potassium [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['K', 'Potassium, Serum']],
  ['2075-0', 'Chloride', 'Chloride [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Cl', 'Chloride, Serum']],
  ['2028-9', 'Carbon Dioxide', 'Carbon dioxide, total [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['CO2', 'Total CO2', 'Carbon Dioxide, Total', 'Bicarbonate (CO2)']],
  ['1963-8', 'Bicarbonate', 'Bicarbonate [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['HCO3', 'Bicarbonate, Serum']],
  ['33037-3', 'Anion Gap', 'Anion gap in Serum or Plasma', 'mmol/L', SP, ['Anion Gap, Serum']],
  ['17861-6', 'Calcium', 'Calcium [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Ca', 'Calcium, Serum', 'Calcium, Total']],
  ['2000-8', 'Calcium (SI)', 'Calcium [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Calcium', 'Ca', 'Calcium, Serum', 'Calcium, Total']],
  ['29265-6', 'Calcium, Corrected', 'Calcium [Moles/volume] corrected for albumin in Serum or Plasma', 'mmol/L', SP, ['Corrected Calcium', 'Adjusted Calcium', 'Albumin Adjusted Calcium', 'Calcium, Adjusted']],
  ['1995-0', 'Calcium, Ionized', 'Calcium.ionized [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Ionized Calcium', 'Ionised Calcium', 'Calcium, Ionised', 'iCa']],
  ['1994-3', 'Calcium, Ionized, Blood', 'Calcium.ionized [Moles/volume] in Blood', 'mmol/L', B, ['Ionized Calcium, Whole Blood', 'Ionised Calcium, Whole Blood']],
  ['19123-9', 'Magnesium', 'Magnesium [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Mg', 'Magnesium, Serum']],
  ['2601-3', 'Magnesium (SI)', 'Magnesium [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Magnesium', 'Mg', 'Magnesium, Serum']],
  ['2777-1', 'Phosphorus', 'Phosphate [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Phosphate', 'Inorganic Phosphorus', 'Phos', 'Phosphorus, Inorganic']],
  ['14879-1', 'Phosphate (SI)', 'Phosphate [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Phosphate', 'Phosphorus', 'Inorganic Phosphorus', 'Phos', 'Phosphorus, Inorganic']],
  ['3084-1', 'Uric Acid', 'Urate [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Urate', 'Uric Acid, Serum']],
  ['14933-6', 'Urate (SI)', 'Urate [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Urate', 'Uric Acid', 'Uric Acid, Serum']],
  // Proteins
  ['2885-2', 'Protein, Total', 'Protein [Mass/volume] in Serum or Plasma', 'g/dL', SP, ['Total Protein', 'TP', 'Protein, Total, Serum']],
  ['1751-7', 'Albumin', 'Albumin [Mass/volume] in Serum or Plasma', 'g/dL', SP, ['ALB', 'Albumin, Serum']],
  ['10834-0', 'Globulin', 'Globulin [Mass/volume] in Serum by calculation', 'g/dL', SP, ['Globulin, Total', 'Calculated Globulin']],
  ['1759-0', 'Albumin/Globulin Ratio', 'Albumin/Globulin [Mass Ratio] in Serum or Plasma', 'ratio', SP, ['A/G Ratio', 'Alb/Glob Ratio', 'AG Ratio']],
  ['14338-8', 'Prealbumin', 'Prealbumin [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Transthyretin', 'Prealbumin, Serum']],
  // Liver
  ['1975-2', 'Bilirubin, Total', 'Bilirubin.total [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Total Bilirubin', 'T. Bilirubin', 'TBIL', 'Bilirubin']],
  ['14631-6', 'Bilirubin, Total (SI)', 'Bilirubin.total [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Bilirubin, Total', 'Total Bilirubin', 'T. Bilirubin', 'TBIL', 'Bilirubin']],
  ['1968-7', 'Bilirubin, Direct', 'Bilirubin.direct [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Direct Bilirubin', 'Conjugated Bilirubin', 'DBIL']],
  ['14629-0', 'Bilirubin, Direct (SI)', 'Bilirubin.direct [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Bilirubin, Direct', 'Direct Bilirubin', 'Conjugated Bilirubin', 'DBIL']],
  ['1971-1', 'Bilirubin, Indirect', 'Bilirubin.indirect [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Indirect Bilirubin', 'Unconjugated Bilirubin']],
  ['14630-8', 'Bilirubin, Indirect (SI)', 'Bilirubin.indirect [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Bilirubin, Indirect', 'Indirect Bilirubin', 'Unconjugated Bilirubin']],
  ['6768-6', 'Alkaline Phosphatase', 'Alkaline phosphatase [Enzymatic activity/volume] in Serum or Plasma', 'U/L', SP, ['ALP', 'Alk Phos', 'Alk. Phosphatase', 'Alkaline Phos']],
  ['1920-8', 'AST', 'Aspartate aminotransferase [Enzymatic activity/volume] in Serum or Plasma', 'U/L', SP, ['AST (SGOT)', 'SGOT', 'Aspartate Aminotransferase', 'Aspartate Transaminase']],
  ['1742-6', 'ALT', 'Alanine aminotransferase [Enzymatic activity/volume] in Serum or Plasma', 'U/L', SP, ['ALT (SGPT)', 'SGPT', 'Alanine Aminotransferase', 'Alanine Transaminase']],
  ['2324-2', 'GGT', 'Gamma glutamyl transferase [Enzymatic activity/volume] in Serum or Plasma', 'U/L', SP, ['Gamma-Glutamyl Transferase', 'Gamma GT', 'GGTP', 'Gamma-Glutamyltransferase']],
  ['16362-6', 'Ammonia', 'Ammonia [Moles/volume] in Plasma', 'umol/L', P, ['Ammonia, Plasma', 'NH3']],
  ['22763-7', 'Ammonia (mass)', 'Ammonia [Mass/volume] in Plasma', 'ug/dL', P, ['Ammonia', 'Ammonia, Plasma', 'NH3']],
  // Pancreas and muscle
  ['1798-8', 'Amylase', 'Amylase [Enzymatic activity/volume] in Serum or Plasma', 'U/L', SP, ['Amylase, Serum', 'Amylase, Total']],
  ['3040-3', 'Lipase', 'Lipase [Enzymatic activity/volume] in Serum or Plasma', 'U/L', SP, ['Lipase, Serum']],
  ['2532-0', 'LDH', 'Lactate dehydrogenase [Enzymatic activity/volume] in Serum or Plasma', 'U/L', SP, ['Lactate Dehydrogenase', 'LD', 'Lactic Dehydrogenase', 'LDH, Total']],
  ['2157-6', 'Creatine Kinase', 'Creatine kinase [Enzymatic activity/volume] in Serum or Plasma', 'U/L', SP, ['CK', 'CPK', 'Creatine Kinase, Total', 'Creatine Phosphokinase', 'CK, Total']],
];

export const CHEMISTRY = toCurated(ENTRIES);
