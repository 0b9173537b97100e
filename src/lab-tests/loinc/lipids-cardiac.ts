import { type Entry, SP, B, toCurated } from './types';

/** Lipids, cardiac markers and inflammation. `(SI)` twins are the molar codes (mmol/L, nmol/L). */
// prettier-ignore
const ENTRIES: Entry[] = [
  // Lipids
  ['2093-3', 'Cholesterol, Total', 'Cholesterol [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Total Cholesterol', 'Cholesterol', 'CHOL', 'TC', 'Serum Cholesterol']],
  ['14647-2', 'Cholesterol, Total (SI)', 'Cholesterol [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Cholesterol, Total', 'Total Cholesterol', 'Cholesterol', 'CHOL', 'TC', 'Serum Cholesterol']],
  ['2085-9', 'HDL Cholesterol', 'Cholesterol in HDL [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['HDL', 'HDL-C', 'HDL Chol', 'High Density Lipoprotein', 'HDL Cholesterol, Direct']],
  ['14646-4', 'HDL Cholesterol (SI)', 'Cholesterol in HDL [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['HDL Cholesterol', 'HDL', 'HDL-C', 'HDL Chol', 'High Density Lipoprotein', 'HDL Cholesterol, Direct']],
  ['2571-8', 'Triglycerides', 'Triglyceride [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Triglyceride', 'TRIG', 'TG', 'Triglycerides, Serum']],
  ['14927-8', 'Triglycerides (SI)', 'Triglyceride [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Triglycerides', 'Triglyceride', 'TRIG', 'TG', 'Triglycerides, Serum']],
  ['13457-7', 'LDL Cholesterol (calculated)', 'Cholesterol in LDL [Mass/volume] in Serum or Plasma by calculation', 'mg/dL', SP, ['LDL Cholesterol', 'LDL-C', 'LDL', 'LDL Chol Calc', 'LDL Calculated', 'LDL-Cholesterol (Calc)', 'Low Density Lipoprotein']],
  ['39469-2', 'LDL Cholesterol (calculated, SI)', 'Cholesterol in LDL [Moles/volume] in Serum or Plasma by calculation', 'mmol/L', SP, ['LDL Cholesterol (calculated)', 'LDL Cholesterol', 'LDL-C', 'LDL', 'LDL Chol Calc', 'LDL Calculated', 'LDL-Cholesterol (Calc)', 'Low Density Lipoprotein']],
  ['18262-6', 'LDL Cholesterol (direct)', 'Cholesterol in LDL [Mass/volume] in Serum or Plasma by Direct assay', 'mg/dL', SP, ['Direct LDL', 'LDL Direct', 'LDL-C, Direct']],
  ['69419-0', 'LDL Cholesterol (direct, SI)', 'Cholesterol in LDL [Moles/volume] in Serum or Plasma by Direct assay', 'mmol/L', SP, ['LDL Cholesterol (direct)', 'Direct LDL', 'LDL Direct', 'LDL-C, Direct']],
  ['2089-1', 'LDL Cholesterol (measured)', 'Cholesterol in LDL [Mass/volume] in Serum or Plasma', 'mg/dL', SP, []],
  ['13458-5', 'VLDL Cholesterol', 'Cholesterol in VLDL [Mass/volume] in Serum or Plasma by calculation', 'mg/dL', SP, ['VLDL', 'VLDL-C', 'VLDL Chol Calc']],
  ['43396-1', 'Non-HDL Cholesterol', 'Cholesterol non HDL [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Non HDL Cholesterol', 'Non-HDL-C', 'Non HDL Chol']],
  ['70204-3', 'Non-HDL Cholesterol (SI)', 'Cholesterol non HDL [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Non-HDL Cholesterol', 'Non HDL Cholesterol', 'Non-HDL-C', 'Non HDL Chol']],
  ['9830-1', 'Cholesterol/HDL Ratio', 'Cholesterol.total/Cholesterol in HDL [Mass Ratio] in Serum or Plasma', 'ratio', SP, ['Chol/HDLC Ratio', 'Total Chol/HDL Ratio', 'TC/HDL Ratio', 'Chol/HDL Ratio', 'Total Cholesterol/HDL Ratio']],
  ['11054-4', 'LDL/HDL Ratio', 'Cholesterol in LDL/Cholesterol in HDL [Mass Ratio] in Serum or Plasma', 'ratio', SP, ['LDL-C/HDL-C Ratio', 'LDL:HDL Ratio']],
  ['1884-6', 'Apolipoprotein B', 'Apolipoprotein B [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Apo B', 'ApoB']],
  ['1869-7', 'Apolipoprotein A-1', 'Apolipoprotein A-I [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Apo A1', 'ApoA1', 'Apolipoprotein A1', 'Apo A-I']],
  ['13462-7', 'Apo A-I/Apo B Ratio', 'Apolipoprotein A-I/Apolipoprotein B [Mass Ratio] in Serum or Plasma', 'ratio', SP, ['ApoA1/ApoB Ratio', 'Apo A1/Apo B Ratio']],
  ['10835-7', 'Lipoprotein (a)', 'Lipoprotein a [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Lp(a)', 'Lipoprotein a', 'Lipoprotein(a)']],
  ['43583-4', 'Lipoprotein (a) (molar)', 'Lipoprotein a [Moles/volume] in Serum or Plasma', 'nmol/L', SP, ['Lipoprotein (a)', 'Lp(a)', 'Lipoprotein a', 'Lipoprotein(a)']],
  // Cardiac markers
  ['10839-9', 'Troponin I', 'Troponin I.cardiac [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['Cardiac Troponin I', 'cTnI', 'Troponin I, Cardiac']],
  ['89579-7', 'Troponin I, High Sensitivity', 'Troponin I.cardiac [Mass/volume] in Serum or Plasma by High sensitivity method', 'ng/L', SP, ['hs-Troponin I', 'hs-cTnI', 'High Sensitivity Troponin I', 'Troponin I, hs']],
  ['6598-7', 'Troponin T', 'Troponin T.cardiac [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['Cardiac Troponin T', 'cTnT', 'Troponin T, Cardiac']],
  ['67151-1', 'Troponin T, High Sensitivity', 'Troponin T.cardiac [Mass/volume] in Serum or Plasma by High sensitivity method', 'ng/L', SP, ['hs-Troponin T', 'hs-cTnT', 'High Sensitivity Troponin T', 'Troponin T, hs']],
  ['33762-6', 'NT-proBNP', 'Natriuretic peptide.B prohormone N-Terminal [Mass/volume] in Serum or Plasma', 'pg/mL', SP, ['NT-pro BNP', 'N-terminal pro-BNP', 'NT proBNP', 'N-Terminal Pro-B-Type Natriuretic Peptide']],
  ['30934-4', 'BNP', 'Natriuretic peptide B [Mass/volume] in Serum or Plasma', 'pg/mL', SP, ['B-type Natriuretic Peptide', 'Brain Natriuretic Peptide']],
  ['13969-1', 'CK-MB', 'Creatine kinase.MB [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['CK-MB Mass', 'CKMB', 'Creatine Kinase MB']],
  ['2639-3', 'Myoglobin', 'Myoglobin [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['Myoglobin, Serum']],
  // Inflammation
  ['30522-7', 'hs-CRP', 'C reactive protein [Mass/volume] in Serum or Plasma by High sensitivity method', 'mg/L', SP, ['High Sensitivity CRP', 'hsCRP', 'C-Reactive Protein, Cardiac', 'CRP, High Sensitivity', 'Cardio CRP', 'hs CRP']],
  ['1988-5', 'C-Reactive Protein', 'C reactive protein [Mass/volume] in Serum or Plasma', 'mg/L', SP, ['CRP', 'C Reactive Protein', 'CRP, Quantitative']],
  ['13965-9', 'Homocysteine', 'Homocysteine [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['Homocysteine, Total', 'Hcy', 'Total Homocysteine']],
  ['33959-8', 'Procalcitonin', 'Procalcitonin [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['PCT']],
  ['4537-7', 'Sedimentation Rate', 'Erythrocyte sedimentation rate by Westergren method', 'mm/h', B, ['ESR', 'Sed Rate', 'Erythrocyte Sedimentation Rate', 'Sed Rate by Modified Westergren', 'ESR (Westergren)']],
];

export const LIPIDS_CARDIAC = toCurated(ENTRIES);
