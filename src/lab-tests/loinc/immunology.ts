import { type Entry, SP, toCurated } from './types';

/**
 * Immunology and infectious serology: immunoglobulins and complement, autoantibodies, tumour
 * markers, and the screening serology labs print (HIV, hepatitis A/B/C, syphilis, the vaccine-
 * preventable viruses, herpesviruses, H. pylori, SARS-CoV-2). Qualitative results (Reactive,
 * Negative) have no unit.
 */
// prettier-ignore
const ENTRIES: Entry[] = [
  // Immunoglobulins and complement
  ['2458-8', 'IgA', 'IgA [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Immunoglobulin A', 'IgA, Serum']],
  ['2465-3', 'IgG', 'IgG [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Immunoglobulin G', 'IgG, Serum']],
  ['2472-9', 'IgM', 'IgM [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Immunoglobulin M', 'IgM, Serum']],
  ['19113-0', 'IgE', 'IgE [Units/volume] in Serum or Plasma', 'IU/mL', SP, ['Immunoglobulin E', 'Total IgE', 'IgE, Total']],
  ['4485-9', 'Complement C3', 'Complement C3 [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['C3', 'C3 Complement']],
  ['4498-2', 'Complement C4', 'Complement C4 [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['C4', 'C4 Complement']],
  ['1952-1', 'Beta-2 Microglobulin', 'Beta-2-Microglobulin [Mass/volume] in Serum', 'mg/L', SP, ['B2M', 'Beta 2 Microglobulin', 'β2-Microglobulin']],
  // Autoimmune
  ['8061-4', 'ANA Screen', 'Nuclear Ab [Presence] in Serum', null, SP, ['ANA', 'Antinuclear Antibodies', 'ANA Screen, IFA', 'Antinuclear Antibody', 'ANA by IFA']],
  ['5048-4', 'ANA Titer', 'Nuclear Ab [Titer] in Serum by Immunofluorescence', null, SP, ['ANA Titre', 'Antinuclear Antibody Titer', 'ANA Titer (IFA)']],
  ['5130-0', 'Anti-dsDNA', 'DNA double strand Ab [Units/volume] in Serum', 'IU/mL', SP, ['dsDNA Antibody', 'Anti-Double Stranded DNA', 'ds-DNA Ab', 'DNA (ds) Antibody']],
  ['11572-5', 'Rheumatoid Factor', 'Rheumatoid factor [Units/volume] in Serum', 'IU/mL', SP, ['RF', 'RA Factor', 'Rheumatoid Factor, Quantitative']],
  ['32218-0', 'Cyclic Citrullinated Peptide Ab', 'Cyclic citrullinated peptide Ab [Units/volume] in Serum by Immunoassay', 'U/mL', SP, ['Anti-CCP', 'CCP Antibodies', 'CCP IgG', 'Anti-Cyclic Citrullinated Peptide']],
  ['31017-7', 'Tissue Transglutaminase IgA', 'Tissue transglutaminase IgA Ab [Units/volume] in Serum', 'U/mL', SP, ['tTG IgA', 'tTG-IgA', 'Transglutaminase IgA', 'Anti-tTG IgA']],
  ['3181-5', 'Cardiolipin IgG', 'Cardiolipin IgG Ab [Units/volume] in Serum by Immunoassay', 'GPL', SP, ['Anticardiolipin IgG', 'aCL IgG', 'Cardiolipin Antibody IgG']],
  ['3182-3', 'Cardiolipin IgM', 'Cardiolipin IgM Ab [Units/volume] in Serum by Immunoassay', 'MPL', SP, ['Anticardiolipin IgM', 'aCL IgM', 'Cardiolipin Antibody IgM']],
  ['5370-2', 'ASO', 'Streptolysin O Ab [Units/volume] in Serum', 'IU/mL', SP, ['Antistreptolysin O', 'ASO Titer', 'ASOT', 'Anti-Streptolysin O']],
  // Tumour markers
  ['2857-1', 'PSA, Total', 'Prostate specific Ag [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['PSA', 'Prostate Specific Antigen', 'Total PSA']],
  ['10886-0', 'PSA, Free', 'Prostate Specific Ag Free [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['Free PSA']],
  ['12841-3', 'PSA, % Free', 'Prostate Specific Ag Free/Prostate specific Ag.total in Serum or Plasma', '%', SP, ['% Free PSA', 'Percent Free PSA', 'Free/Total PSA Ratio']],
  ['2039-6', 'CEA', 'Carcinoembryonic Ag [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['Carcinoembryonic Antigen']],
  ['10334-1', 'CA 125', 'Cancer Ag 125 [Units/volume] in Serum or Plasma', 'U/mL', SP, ['CA-125', 'Cancer Antigen 125', 'CA125']],
  ['24108-3', 'CA 19-9', 'Cancer Ag 19-9 [Units/volume] in Serum or Plasma', 'U/mL', SP, ['CA19-9', 'Cancer Antigen 19-9', 'CA 19.9']],
  ['6875-9', 'CA 15-3', 'Cancer Ag 15-3 [Units/volume] in Serum or Plasma', 'U/mL', SP, ['CA15-3', 'Cancer Antigen 15-3']],
  ['17842-6', 'CA 27-29', 'Cancer Ag 27-29 [Units/volume] in Serum or Plasma', 'U/mL', SP, ['CA27-29', 'Cancer Antigen 27-29', 'CA 27.29']],
  ['1834-1', 'Alpha-Fetoprotein', 'Alpha-1-Fetoprotein [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['AFP', 'Alpha Fetoprotein', 'AFP, Tumor Marker']],
  // HIV
  ['56888-1', 'HIV-1/2 Antigen/Antibody', 'HIV 1+2 Ab+HIV1 p24 Ag [Presence] in Serum or Plasma by Immunoassay', null, SP, ['HIV Ag/Ab 4th Generation', 'HIV 1/2 Ag/Ab Screen', 'HIV Screen', 'HIV-1/2 Ag/Ab', 'HIV 1/2 Antigen/Antibody, 4th Gen']],
  ['7918-6', 'HIV-1/2 Antibody', 'HIV 1+2 Ab [Presence] in Serum', null, SP, ['HIV 1/2 Antibodies', 'HIV-1/HIV-2 Antibody', 'HIV Antibody']],
  ['20447-9', 'HIV-1 RNA, Viral Load', 'HIV 1 RNA [#/volume] (viral load) in Serum or Plasma by Probe & target amplification method', 'copies/mL', SP, ['HIV-1 RNA, Quantitative', 'HIV Viral Load', 'HIV-1 Viral Load', 'HIV RNA PCR']],
  // Hepatitis A and B
  ['13951-9', 'Hepatitis A Antibody, Total', 'Hepatitis A virus Ab [Presence] in Serum by Immunoassay', null, SP, ['HAV Ab Total', 'Hep A Ab, Total', 'Anti-HAV Total', 'Hepatitis A Total Antibodies']],
  ['13950-1', 'Hepatitis A IgM', 'Hepatitis A virus IgM Ab [Presence] in Serum by Immunoassay', null, SP, ['HAV IgM', 'Hep A IgM', 'Anti-HAV IgM', 'Hepatitis A Antibody, IgM']],
  ['5196-1', 'Hepatitis B Surface Antigen', 'Hepatitis B virus surface Ag [Presence] in Serum or Plasma by Immunoassay', null, SP, ['HBsAg', 'Hep B Surface Ag', 'Hepatitis B sAg']],
  ['22322-2', 'Hepatitis B Surface Antibody', 'Hepatitis B virus surface Ab [Presence] in Serum', null, SP, ['HBsAb', 'Anti-HBs', 'Hep B Surface Ab']],
  ['16935-9', 'Hepatitis B Surface Antibody, Quantitative', 'Hepatitis B virus surface Ab [Units/volume] in Serum', 'mIU/mL', SP, ['HBsAb Quantitative', 'Anti-HBs Quantitative', 'Anti-HBs Titer']],
  ['16933-4', 'Hepatitis B Core Antibody, Total', 'Hepatitis B virus core Ab [Presence] in Serum', null, SP, ['HBcAb', 'Anti-HBc', 'Hep B Core Ab Total', 'HBcAb Total']],
  ['31204-1', 'Hepatitis B Core Antibody, IgM', 'Hepatitis B virus core IgM Ab [Presence] in Serum', null, SP, ['HBc IgM', 'Anti-HBc IgM', 'Hep B Core Ab IgM', 'HBcAb IgM']],
  ['13954-3', 'Hepatitis B e Antigen', 'Hepatitis B virus e Ag [Presence] in Serum by Immunoassay', null, SP, ['HBeAg', 'Hep B e Ag']],
  ['13953-5', 'Hepatitis B e Antibody', 'Hepatitis B virus e Ab [Presence] in Serum by Immunoassay', null, SP, ['HBeAb', 'Anti-HBe', 'Hep B e Ab']],
  ['29615-2', 'Hepatitis B DNA, Viral Load', 'Hepatitis B virus DNA [#/volume] (viral load) in Serum or Plasma by Probe & target amplification method', 'IU/mL', SP, ['HBV DNA, Quantitative', 'HBV Viral Load', 'Hepatitis B Viral DNA']],
  // Hepatitis C
  ['13955-0', 'Hepatitis C Antibody', 'Hepatitis C virus Ab [Presence] in Serum or Plasma by Immunoassay', null, SP, ['HCV Ab', 'Anti-HCV', 'Hep C Ab', 'Hepatitis C Virus Antibody']],
  ['11011-4', 'Hepatitis C RNA, Viral Load', 'Hepatitis C virus RNA [Units/volume] (viral load) in Serum or Plasma by Probe & target amplification method', 'IU/mL', SP, ['HCV RNA, Quantitative', 'HCV Viral Load', 'Hepatitis C Viral RNA']],
  // Syphilis
  ['20507-0', 'RPR', 'Reagin Ab [Presence] in Serum by RPR', null, SP, ['Rapid Plasma Reagin', 'Syphilis RPR', 'RPR Screen', 'RPR (Monitor)']],
  ['31147-2', 'RPR Titer', 'Reagin Ab [Titer] in Serum by RPR', null, SP, ['RPR Titre', 'Rapid Plasma Reagin Titer']],
  ['5292-8', 'VDRL', 'Reagin Ab [Presence] in Serum by VDRL', null, SP, ['VDRL, Serum', 'Syphilis VDRL']],
  ['22587-0', 'Treponema pallidum Antibody', 'Treponema pallidum Ab [Presence] in Serum', null, SP, ['Syphilis Antibody', 'Treponemal Antibody', 'T. pallidum Ab', 'Syphilis Treponemal Screen']],
  ['24312-1', 'TP-PA', 'Treponema pallidum Ab [Presence] in Serum by Agglutination', null, SP, ['TPPA', 'T. pallidum Particle Agglutination']],
  ['5393-4', 'FTA-ABS', 'Treponema pallidum Ab [Presence] in Serum by Immunofluorescence', null, SP, ['FTA ABS', 'Fluorescent Treponemal Antibody']],
  // Vaccine-preventable viruses
  ['8014-3', 'Rubella IgG', 'Rubella virus IgG Ab [Units/volume] in Serum', 'IU/mL', SP, ['Rubella Antibody IgG', 'Rubella Immune Status', 'Rubella IgG Antibody']],
  ['19162-7', 'Varicella Zoster IgG', 'Varicella zoster virus IgG Ab [Presence] in Serum', null, SP, ['VZV IgG', 'Varicella IgG', 'Varicella Zoster Virus Antibody IgG', 'Chickenpox IgG']],
  ['20479-2', 'Measles IgG', 'Measles virus IgG Ab [Presence] in Serum', null, SP, ['Rubeola IgG', 'Measles Antibody IgG', 'Measles (Rubeola) IgG']],
  ['22415-4', 'Mumps IgG', 'Mumps virus IgG Ab [Presence] in Serum', null, SP, ['Mumps Antibody IgG', 'Mumps Virus IgG']],
  // Herpesviruses, toxoplasma, H. pylori, SARS-CoV-2
  ['5124-3', 'CMV IgG', 'Cytomegalovirus IgG Ab [Units/volume] in Serum by Immunoassay', 'U/mL', SP, ['Cytomegalovirus IgG', 'CMV Antibody IgG']],
  ['24119-0', 'CMV IgM', 'Cytomegalovirus IgM Ab [Presence] in Serum by Immunoassay', null, SP, ['Cytomegalovirus IgM', 'CMV Antibody IgM']],
  ['5157-3', 'EBV VCA IgG', 'Epstein Barr virus capsid IgG Ab [Units/volume] in Serum by Immunoassay', 'U/mL', SP, ['EBV Capsid IgG', 'Epstein-Barr VCA IgG', 'VCA IgG']],
  ['5159-9', 'EBV VCA IgM', 'Epstein Barr virus capsid IgM Ab [Units/volume] in Serum by Immunoassay', 'U/mL', SP, ['EBV Capsid IgM', 'Epstein-Barr VCA IgM', 'VCA IgM']],
  ['30083-0', 'EBV Nuclear Antigen IgG', 'Epstein Barr virus nuclear IgG Ab [Units/volume] in Serum by Immunoassay', 'U/mL', SP, ['EBNA IgG', 'EBV EBNA IgG', 'Epstein-Barr Nuclear Antigen IgG']],
  ['5206-8', 'HSV-1 IgG', 'Herpes simplex virus 1 IgG Ab [Units/volume] in Serum by Immunoassay', 'index', SP, ['HSV 1 IgG', 'Herpes Simplex 1 IgG', 'HSV-1 IgG, Type Specific']],
  ['5209-2', 'HSV-2 IgG', 'Herpes simplex virus 2 IgG Ab [Units/volume] in Serum by Immunoassay', 'index', SP, ['HSV 2 IgG', 'Herpes Simplex 2 IgG', 'HSV-2 IgG, Type Specific']],
  ['5388-4', 'Toxoplasma IgG', 'Toxoplasma gondii IgG Ab [Units/volume] in Serum by Immunoassay', 'IU/mL', SP, ['Toxoplasma gondii IgG', 'Toxo IgG', 'Toxoplasma Antibody IgG']],
  ['7902-0', 'H. pylori IgG', 'Helicobacter pylori IgG Ab [Units/volume] in Serum', 'U/mL', SP, ['Helicobacter pylori IgG', 'H pylori IgG', 'H. pylori Antibody IgG', 'Helicobacter pylori Antibody']],
  ['94563-4', 'SARS-CoV-2 IgG', 'SARS-CoV-2 (COVID-19) IgG Ab [Presence] in Serum or Plasma by Immunoassay', null, SP, ['COVID-19 IgG', 'SARS-CoV-2 Antibody IgG', 'COVID-19 Antibody IgG', 'Coronavirus IgG']],
  ['94564-2', 'SARS-CoV-2 IgM', 'SARS-CoV-2 (COVID-19) IgM Ab [Presence] in Serum or Plasma by Immunoassay', null, SP, ['COVID-19 IgM', 'SARS-CoV-2 Antibody IgM', 'COVID-19 Antibody IgM', 'Coronavirus IgM']],
];

export const IMMUNOLOGY = toCurated(ENTRIES);
