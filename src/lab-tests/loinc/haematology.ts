import { type Entry, B, P, toCurated } from './types';

/**
 * Haematology: the complete blood count with its differential (percentages and absolute counts
 * are different codes, told apart by the printed unit), reticulocytes, haemoglobin fractions and
 * the sickling and electrophoresis screens, malaria (film and rapid test), blood groups and
 * coagulation. Counts in 10^9/L and 10^12/L are the same codes as 10^3/µL and
 * 10^6/µL (same quantity, other spelling), so they need no SI twins.
 */
// prettier-ignore
const ENTRIES: Entry[] = [
  // Complete blood count
  ['6690-2', 'White Blood Cell Count', 'Leukocytes [#/volume] in Blood by Automated count', '10*3/uL', B, ['WBC', 'White Blood Cells', 'Leukocytes', 'WBC Count', 'White Cell Count', 'Total Leucocyte Count', 'TLC', 'Leucocytes', 'Total WBC Count']],
  ['789-8', 'Red Blood Cell Count', 'Erythrocytes [#/volume] in Blood by Automated count', '10*6/uL', B, ['RBC', 'Red Blood Cells', 'Erythrocytes', 'RBC Count', 'Red Cell Count']],
  ['718-7', 'Hemoglobin', 'Hemoglobin [Mass/volume] in Blood', 'g/dL', B, ['HGB', 'Hb', 'Haemoglobin']],
  ['59260-0', 'Hemoglobin (SI)', 'Hemoglobin [Moles/volume] in Blood', 'mmol/L', B, ['Hemoglobin', 'HGB', 'Hb', 'Haemoglobin']],
  ['4544-3', 'Hematocrit', 'Hematocrit [Volume Fraction] of Blood by Automated count', '%', B, ['HCT', 'Haematocrit', 'PCV', 'Packed Cell Volume']],
  ['787-2', 'MCV', 'MCV [Entitic volume] by Automated count', 'fL', B, ['Mean Corpuscular Volume', 'Mean Cell Volume']],
  ['785-6', 'MCH', 'MCH [Entitic mass] by Automated count', 'pg', B, ['Mean Corpuscular Hemoglobin', 'Mean Cell Hemoglobin', 'Mean Cell Haemoglobin']],
  ['786-4', 'MCHC', 'MCHC [Mass/volume] by Automated count', 'g/dL', B, ['Mean Corpuscular Hemoglobin Concentration', 'Mean Cell Hemoglobin Concentration', 'Mean Cell Haemoglobin Concentration']],
  ['788-0', 'RDW', 'Erythrocyte distribution width [Ratio] by Automated count', '%', B, ['RDW-CV', 'Red Cell Distribution Width', 'Red Cell Dist Width', 'RDW CV']],
  ['21000-5', 'RDW-SD', 'Erythrocyte distribution width [Entitic volume] by Automated count', 'fL', B, ['RDW SD']],
  ['777-3', 'Platelet Count', 'Platelets [#/volume] in Blood by Automated count', '10*3/uL', B, ['Platelets', 'PLT', 'Platelet', 'Thrombocytes', 'Thrombocyte Count']],
  ['32623-1', 'MPV', 'Platelet mean volume [Entitic volume] in Blood by Automated count', 'fL', B, ['Mean Platelet Volume']],
  ['32207-3', 'PDW', 'Platelet distribution width [Entitic volume] in Blood by Automated count', 'fL', B, ['Platelet Distribution Width']],
  // Differential: percentages
  ['770-8', 'Neutrophils %', 'Neutrophils/100 leukocytes in Blood by Automated count', '%', B, ['Neutrophils', 'Neutrophil %', 'Neut %', 'Polys', 'Neutrophils (%)']],
  ['736-9', 'Lymphocytes %', 'Lymphocytes/100 leukocytes in Blood by Automated count', '%', B, ['Lymphocytes', 'Lymph %', 'Lymphs', 'Lymphocytes (%)']],
  ['5905-5', 'Monocytes %', 'Monocytes/100 leukocytes in Blood by Automated count', '%', B, ['Monocytes', 'Mono %', 'Monos', 'Monocytes (%)']],
  ['713-8', 'Eosinophils %', 'Eosinophils/100 leukocytes in Blood by Automated count', '%', B, ['Eosinophils', 'Eos %', 'Eos', 'Eosinophils (%)']],
  ['706-2', 'Basophils %', 'Basophils/100 leukocytes in Blood by Automated count', '%', B, ['Basophils', 'Baso %', 'Basos', 'Basophils (%)']],
  ['769-0', 'Segmented Neutrophils %', 'Neutrophils.segmented/100 leukocytes in Blood by Manual count', '%', B, ['Segmented Neutrophils', 'Segs', 'Neutrophils, Segmented', 'Segmented Neutrophils (Manual)']],
  ['764-1', 'Band Neutrophils %', 'Neutrophils.band form/100 leukocytes in Blood by Manual count', '%', B, ['Bands', 'Band Neutrophils', 'Neutrophils, Band', 'Band Forms']],
  ['735-1', 'Variant Lymphocytes %', 'Lymphocytes Variant/100 leukocytes in Blood by Manual count', '%', B, ['Atypical Lymphocytes', 'Variant Lymphocytes', 'Reactive Lymphocytes']],
  ['58413-6', 'Nucleated RBC /100 WBC', 'Nucleated erythrocytes/100 leukocytes [Ratio] in Blood by Automated count', '/100 WBC', B, ['NRBC', 'Nucleated RBC', 'Nucleated Red Blood Cells', 'NRBC %']],
  // Differential: absolute counts
  ['751-8', 'Absolute Neutrophils', 'Neutrophils [#/volume] in Blood by Automated count', '10*3/uL', B, ['Neutrophils, Absolute', 'Neutrophils Absolute', 'ANC', 'Absolute Neutrophil Count', 'Neutrophils #', 'Neut #', 'Abs Neutrophils', 'Neutrophils (Absolute)']],
  ['731-0', 'Absolute Lymphocytes', 'Lymphocytes [#/volume] in Blood by Automated count', '10*3/uL', B, ['Lymphocytes, Absolute', 'Lymphocytes Absolute', 'Absolute Lymphocyte Count', 'Lymphocytes #', 'Lymph #', 'Abs Lymphocytes', 'Lymphs (Absolute)']],
  ['742-7', 'Absolute Monocytes', 'Monocytes [#/volume] in Blood by Automated count', '10*3/uL', B, ['Monocytes, Absolute', 'Monocytes Absolute', 'Monocytes #', 'Mono #', 'Abs Monocytes', 'Monocytes (Absolute)']],
  ['711-2', 'Absolute Eosinophils', 'Eosinophils [#/volume] in Blood by Automated count', '10*3/uL', B, ['Eosinophils, Absolute', 'Eosinophils Absolute', 'Eosinophils #', 'Eos #', 'Abs Eosinophils', 'Eos (Absolute)']],
  ['704-7', 'Absolute Basophils', 'Basophils [#/volume] in Blood by Automated count', '10*3/uL', B, ['Basophils, Absolute', 'Basophils Absolute', 'Basophils #', 'Baso #', 'Abs Basophils', 'Baso (Absolute)']],
  ['771-6', 'Nucleated RBC, Absolute', 'Nucleated erythrocytes [#/volume] in Blood by Automated count', '10*3/uL', B, ['NRBC Absolute', 'NRBC #', 'Absolute NRBC']],
  // Reticulocytes and haemoglobin fractions
  ['17849-1', 'Reticulocyte Count', 'Reticulocytes/100 erythrocytes in Blood by Automated count', '%', B, ['Reticulocytes', 'Retic Count', 'Retic %', 'Reticulocyte %']],
  ['14196-0', 'Reticulocytes, Absolute', 'Reticulocytes [#/volume] in Blood', '10*3/uL', B, ['Absolute Reticulocyte Count', 'Retic Absolute', 'Reticulocytes #', 'Retic #']],
  ['4551-8', 'Hemoglobin A2', 'Hemoglobin A2/Hemoglobin.total in Blood', '%', B, ['HbA2', 'Hb A2', 'Haemoglobin A2']],
  ['4576-5', 'Hemoglobin F', 'Hemoglobin F/Hemoglobin.total in Blood', '%', B, ['HbF', 'Hb F', 'Fetal Hemoglobin', 'Haemoglobin F', 'Fetal Haemoglobin']],
  ['4625-0', 'Hemoglobin S', 'Hemoglobin S/Hemoglobin.total in Blood', '%', B, ['HbS', 'Hb S', 'Haemoglobin S', 'Sickle Hemoglobin']],
  ['4621-9', 'Hemoglobin S Screen', 'Hemoglobin S [Presence] in Blood', null, B, ['Sickling Test', 'Sickling', 'Sickle Cell Screen', 'Sickle Cell Test', 'Hb S Screen', 'HbS Screen']],
  ['13514-5', 'Hemoglobin Electrophoresis', 'Hemoglobin pattern [interpretation] in Blood by Electrophoresis Narrative', null, B, ['Haemoglobin Electrophoresis', 'Hb Electrophoresis', 'Hb Genotype', 'Hemoglobin Genotype', 'Haemoglobin Genotype']],
  // Blood parasites: a blood film read under the microscope, and a rapid antigen test
  ['51587-4', 'Malaria Parasites', 'Plasmodium sp [Presence] in Blood by Light microscopy', null, B, ['Blood Film for Malaria Parasites', 'Blood Film for MPs', 'BF for Malaria', 'Malaria Smear', 'Malaria Film', 'MPs']],
  ['70569-9', 'Malaria RDT', 'Plasmodium sp Ag [Identifier] in Blood by Rapid immunoassay', null, B, ['Malaria Rapid Test', 'Malaria Rapid Diagnostic Test', 'mRDT', 'Malaria Antigen', 'Malaria Ag']],
  // Blood bank
  ['883-9', 'ABO Group', 'ABO group [Type] in Blood', null, B, ['Blood Group', 'ABO Grouping', 'Blood Type', 'ABO']],
  ['10331-7', 'Rh Type', 'Rh [Type] in Blood', null, B, ['Rh Factor', 'Rh(D) Type', 'Rh Typing', 'RhD']],
  ['882-1', 'ABO and Rh Group', 'ABO & Rh group [Type] in Blood', null, B, ['Blood Group & Rh', 'ABO/Rh', 'ABO & Rh', 'Blood Type and Rh', 'Blood Group and Rh Type']],
  // Coagulation
  ['5902-2', 'Prothrombin Time', 'Prothrombin time (PT) in Platelet poor plasma by Coagulation assay', 's', P, ['PT', 'Pro Time', 'Protime', 'Prothrombin Time (PT)']],
  ['6301-6', 'INR', 'INR in Platelet poor plasma by Coagulation assay', 'ratio', P, ['International Normalized Ratio', 'PT INR', 'International Normalised Ratio']],
  ['34714-6', 'INR, Point of Care', 'INR in Blood by Coagulation assay', 'ratio', B, ['POC INR', 'INR (POC)', 'INR, Fingerstick']],
  ['14979-9', 'aPTT', 'Activated partial thromboplastin time (aPTT) in Platelet poor plasma by Coagulation assay', 's', P, ['PTT', 'Activated Partial Thromboplastin Time', 'Partial Thromboplastin Time']],
  ['3243-3', 'Thrombin Time', 'Thrombin time in Platelet poor plasma by Coagulation assay', 's', P, ['TT', 'Thrombin Clotting Time']],
  ['3255-7', 'Fibrinogen', 'Fibrinogen [Mass/volume] in Platelet poor plasma by Coagulation assay', 'mg/dL', P, ['Fibrinogen Activity', 'Fibrinogen (Clauss)', 'Fibrinogen, Functional']],
  ['48065-7', 'D-Dimer', 'Fibrin D-dimer FEU [Mass/volume] in Platelet poor plasma', 'ug/mL FEU', P, ['D Dimer', 'D-Dimer, Quantitative', 'D-Dimer FEU']],
  ['48066-5', 'D-Dimer (DDU)', 'Fibrin D-dimer DDU [Mass/volume] in Platelet poor plasma', 'ng/mL DDU', P, ['D-Dimer DDU', 'D Dimer DDU']],
  ['27811-9', 'Antithrombin Activity', 'Antithrombin actual/normal in Platelet poor plasma by Chromogenic method', '%', P, ['Antithrombin', 'Antithrombin III', 'AT III', 'ATIII Activity', 'Antithrombin III Activity']],
];

export const HAEMATOLOGY = toCurated(ENTRIES);
