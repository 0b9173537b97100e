import { type Entry, SP, P, U, toCurated } from './types';

/** Endocrinology: thyroid, adrenal, pituitary, sex hormones, fertility and pregnancy, bone. */
// prettier-ignore
const ENTRIES: Entry[] = [
  // Thyroid
  ['3016-3', 'TSH', 'Thyrotropin [Units/volume] in Serum or Plasma', 'mIU/L', SP, ['Thyroid Stimulating Hormone', 'Thyrotropin', 'TSH, 3rd Generation', 'TSH Ultrasensitive', 'TSH, Ultrasensitive', 'Thyroid-Stimulating Hormone']],
  ['3024-7', 'Free T4', 'Thyroxine (T4) free [Mass/volume] in Serum or Plasma', 'ng/dL', SP, ['T4, Free', 'FT4', 'Free Thyroxine', 'Thyroxine, Free', 'T4 Free (Direct)']],
  ['14920-3', 'Free T4 (SI)', 'Thyroxine (T4) free [Moles/volume] in Serum or Plasma', 'pmol/L', SP, ['Free T4', 'T4, Free', 'FT4', 'Free Thyroxine', 'Thyroxine, Free']],
  ['3026-2', 'T4, Total', 'Thyroxine (T4) [Mass/volume] in Serum or Plasma', 'ug/dL', SP, ['Total T4', 'Thyroxine', 'Thyroxine (T4)', 'T4']],
  ['14921-1', 'T4, Total (SI)', 'Thyroxine (T4) [Moles/volume] in Serum or Plasma', 'nmol/L', SP, ['T4, Total', 'Total T4', 'Thyroxine', 'Thyroxine (T4)', 'T4']],
  ['3051-0', 'Free T3', 'Triiodothyronine (T3) Free [Mass/volume] in Serum or Plasma', 'pg/mL', SP, ['T3, Free', 'FT3', 'Free Triiodothyronine', 'Triiodothyronine, Free']],
  ['14928-6', 'Free T3 (SI)', 'Triiodothyronine (T3) Free [Moles/volume] in Serum or Plasma', 'pmol/L', SP, ['Free T3', 'T3, Free', 'FT3', 'Free Triiodothyronine', 'Triiodothyronine, Free']],
  ['3053-6', 'T3, Total', 'Triiodothyronine (T3) [Mass/volume] in Serum or Plasma', 'ng/dL', SP, ['Total T3', 'Triiodothyronine', 'T3']],
  ['14930-2', 'T3, Total (SI)', 'Triiodothyronine (T3) [Moles/volume] in Serum or Plasma', 'nmol/L', SP, ['T3, Total', 'Total T3', 'Triiodothyronine', 'T3']],
  ['3052-8', 'Reverse T3', 'Triiodothyronine (T3).reverse [Mass/volume] in Serum or Plasma', 'ng/dL', SP, ['T3, Reverse', 'rT3', 'Reverse Triiodothyronine']],
  ['3050-2', 'T3 Uptake', 'Triiodothyronine resin uptake (T3RU) in Serum or Plasma', '%', SP, ['T3 Resin Uptake', 'T3RU', 'T-Uptake']],
  ['32215-6', 'Free T4 Index', 'Thyroxine (T4) free index in Serum or Plasma', null, SP, ['FTI', 'Free Thyroxine Index', 'T7']],
  ['8099-4', 'Thyroid Peroxidase Antibodies', 'Thyroperoxidase Ab [Units/volume] in Serum or Plasma', 'IU/mL', SP, ['TPO Antibodies', 'Anti-TPO', 'TPO Ab', 'Thyroid Peroxidase Ab', 'Anti-Thyroid Peroxidase', 'Thyroperoxidase Antibodies']],
  ['8098-6', 'Thyroglobulin Antibodies', 'Thyroglobulin Ab [Units/volume] in Serum or Plasma', 'IU/mL', SP, ['Anti-Thyroglobulin', 'TgAb', 'Thyroglobulin Ab', 'Anti-Tg']],
  ['3013-0', 'Thyroglobulin', 'Thyroglobulin [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['Tg', 'Thyroglobulin, Serum']],
  ['30166-3', 'Thyroid Stimulating Immunoglobulin', 'Thyroid stimulating immunoglobulins actual/normal in Serum', '%', SP, ['TSI', 'Thyroid Stimulating Immunoglobulins', 'Thyroid-Stimulating Immunoglobulin']],
  // Adrenal and pituitary
  ['2143-6', 'Cortisol', 'Cortisol [Mass/volume] in Serum or Plasma', 'ug/dL', SP, ['Cortisol, AM', 'Cortisol, Serum', 'AM Cortisol', 'Cortisol, Total', 'Serum Cortisol']],
  ['14675-3', 'Cortisol (SI)', 'Cortisol [Moles/volume] in Serum or Plasma', 'nmol/L', SP, ['Cortisol', 'Cortisol, AM', 'Cortisol, Serum', 'AM Cortisol', 'Cortisol, Total', 'Serum Cortisol']],
  ['2141-0', 'ACTH', 'Corticotropin [Mass/volume] in Plasma', 'pg/mL', P, ['Adrenocorticotropic Hormone', 'Corticotropin', 'ACTH, Plasma']],
  ['14674-6', 'ACTH (SI)', 'Corticotropin [Moles/volume] in Plasma', 'pmol/L', P, ['ACTH', 'Adrenocorticotropic Hormone', 'Corticotropin', 'ACTH, Plasma']],
  ['1763-2', 'Aldosterone', 'Aldosterone [Mass/volume] in Serum or Plasma', 'ng/dL', SP, ['Aldosterone, Serum']],
  ['14586-2', 'Aldosterone (SI)', 'Aldosterone [Moles/volume] in Serum or Plasma', 'pmol/L', SP, ['Aldosterone', 'Aldosterone, Serum']],
  ['2915-7', 'Renin Activity', 'Renin [Enzymatic activity/volume] in Plasma', 'ng/mL/h', P, ['Plasma Renin Activity', 'PRA', 'Renin Activity, Plasma']],
  ['2842-3', 'Prolactin', 'Prolactin [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['PRL', 'Prolactin, Serum']],
  ['2963-7', 'Growth Hormone', 'Somatotropin [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['GH', 'Somatotropin', 'Human Growth Hormone', 'HGH']],
  ['2484-4', 'IGF-1', 'Insulin-like growth factor-I [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['Insulin-like Growth Factor 1', 'Somatomedin C', 'IGF-I', 'IGF 1']],
  ['2483-6', 'IGFBP-3', 'Insulin-like growth factor binding protein 3 [Mass/volume] in Serum or Plasma', 'mg/L', SP, ['IGF Binding Protein 3', 'IGF-BP3']],
  // Sex hormones and fertility
  ['2986-8', 'Testosterone, Total', 'Testosterone [Mass/volume] in Serum or Plasma', 'ng/dL', SP, ['Testosterone', 'Total Testosterone', 'Testosterone, Serum']],
  ['14913-8', 'Testosterone, Total (SI)', 'Testosterone [Moles/volume] in Serum or Plasma', 'nmol/L', SP, ['Testosterone, Total', 'Testosterone', 'Total Testosterone', 'Testosterone, Serum']],
  ['2991-8', 'Testosterone, Free', 'Testosterone Free [Mass/volume] in Serum or Plasma', 'pg/mL', SP, ['Free Testosterone', 'Testosterone, Free (Calculated)']],
  ['14914-6', 'Testosterone, Free (SI)', 'Testosterone Free [Moles/volume] in Serum or Plasma', 'pmol/L', SP, ['Testosterone, Free', 'Free Testosterone', 'Testosterone, Free (Calculated)']],
  ['13967-5', 'Sex Hormone Binding Globulin', 'Sex hormone binding globulin [Moles/volume] in Serum or Plasma', 'nmol/L', SP, ['SHBG', 'Sex Hormone-Binding Globulin']],
  ['2243-4', 'Estradiol', 'Estradiol (E2) [Mass/volume] in Serum or Plasma', 'pg/mL', SP, ['E2', 'Oestradiol', 'Estradiol, Serum', 'Estradiol (E2)']],
  ['14715-7', 'Estradiol (SI)', 'Estradiol (E2) [Moles/volume] in Serum or Plasma', 'pmol/L', SP, ['Estradiol', 'E2', 'Oestradiol', 'Estradiol, Serum', 'Estradiol (E2)']],
  ['2258-2', 'Estrone', 'Estrone (E1) [Mass/volume] in Serum or Plasma', 'pg/mL', SP, ['E1', 'Oestrone']],
  ['2839-9', 'Progesterone', 'Progesterone [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['Progesterone, Serum']],
  ['14890-8', 'Progesterone (SI)', 'Progesterone [Moles/volume] in Serum or Plasma', 'nmol/L', SP, ['Progesterone', 'Progesterone, Serum']],
  ['10501-5', 'LH', 'Lutropin [Units/volume] in Serum or Plasma', 'mIU/mL', SP, ['Luteinizing Hormone', 'Lutropin', 'Luteinising Hormone']],
  ['15067-2', 'FSH', 'Follitropin [Units/volume] in Serum or Plasma', 'mIU/mL', SP, ['Follicle Stimulating Hormone', 'Follitropin', 'Follicle-Stimulating Hormone']],
  ['2191-5', 'DHEA Sulfate', 'Dehydroepiandrosterone sulfate (DHEA-S) [Mass/volume] in Serum or Plasma', 'ug/dL', SP, ['DHEA-S', 'DHEAS', 'DHEA-Sulfate', 'DHEA Sulphate', 'Dehydroepiandrosterone Sulfate']],
  ['14688-6', 'DHEA Sulfate (SI)', 'Dehydroepiandrosterone sulfate (DHEA-S) [Moles/volume] in Serum or Plasma', 'umol/L', SP, ['DHEA Sulfate', 'DHEA-S', 'DHEAS', 'DHEA-Sulfate', 'DHEA Sulphate', 'Dehydroepiandrosterone Sulfate']],
  ['2193-1', 'DHEA', 'Dehydroepiandrosterone (DHEA) [Mass/volume] in Serum or Plasma', 'ng/dL', SP, ['Dehydroepiandrosterone', 'DHEA, Unconjugated']],
  ['1668-3', '17-Hydroxyprogesterone', '17-Hydroxyprogesterone [Mass/volume] in Serum or Plasma', 'ng/dL', SP, ['17-OH Progesterone', '17-OHP', '17 Hydroxyprogesterone']],
  ['1854-9', 'Androstenedione', 'Androstenedione [Mass/volume] in Serum or Plasma', 'ng/dL', SP, ['Androstenedione, Serum', 'A4']],
  ['38476-8', 'Anti-Mullerian Hormone', 'Mullerian inhibiting substance [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['AMH', 'Anti-Müllerian Hormone', 'Mullerian Inhibiting Substance', 'Antimullerian Hormone']],
  ['21198-7', 'hCG, Beta, Quantitative', 'Choriogonadotropin.beta subunit [Units/volume] in Serum or Plasma', 'mIU/mL', SP, ['Beta hCG', 'hCG Quantitative', 'Quantitative hCG', 'beta-hCG', 'hCG, Beta Subunit', 'B-hCG']],
  ['19080-1', 'hCG, Total', 'Choriogonadotropin [Units/volume] in Serum or Plasma', 'mIU/mL', SP, ['Total hCG', 'hCG', 'Human Chorionic Gonadotropin', 'hCG, Total, Quantitative']],
  ['2118-8', 'Pregnancy Test, Serum', 'Choriogonadotropin (pregnancy test) [Presence] in Serum or Plasma', null, SP, ['Serum Pregnancy Test', 'hCG, Serum, Qualitative', 'hCG Qualitative, Serum']],
  ['2106-3', 'Pregnancy Test, Urine', 'Choriogonadotropin (pregnancy test) [Presence] in Urine', null, U, ['Urine hCG', 'Urine Pregnancy Test', 'hCG, Urine, Qualitative', 'Pregnancy Test']],
  // Bone and calcium regulation
  ['2731-8', 'PTH, Intact', 'Parathyrin.intact [Mass/volume] in Serum or Plasma', 'pg/mL', SP, ['Parathyroid Hormone', 'PTH', 'Intact PTH', 'Parathyroid Hormone, Intact']],
  ['14866-8', 'PTH, Intact (SI)', 'Parathyrin.intact [Moles/volume] in Serum or Plasma', 'pmol/L', SP, ['PTH, Intact', 'Parathyroid Hormone', 'PTH', 'Intact PTH', 'Parathyroid Hormone, Intact']],
  ['1649-3', 'Vitamin D, 1,25-Dihydroxy', 'Calcitriol [Mass/volume] in Serum or Plasma', 'pg/mL', SP, ['1,25-Dihydroxyvitamin D', 'Calcitriol', '1,25-(OH)2 Vitamin D', '1,25 Dihydroxy Vitamin D']],
];

export const ENDOCRINE = toCurated(ENTRIES);
