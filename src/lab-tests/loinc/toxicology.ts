import { type Entry, SP, B, U, toCurated } from './types';

/** Therapeutic drug levels, toxic metals and the urine drug screen: the basics routine reports carry. */
// prettier-ignore
const ENTRIES: Entry[] = [
  ['5643-2', 'Ethanol', 'Ethanol [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Alcohol', 'Ethyl Alcohol', 'Blood Alcohol', 'Ethanol, Serum']],
  ['5671-3', 'Lead, Blood', 'Lead [Mass/volume] in Blood', 'ug/dL', B, ['Lead', 'Blood Lead', 'Lead, Whole Blood', 'Pb']],
  ['5685-3', 'Mercury, Blood', 'Mercury [Mass/volume] in Blood', 'ug/L', B, ['Mercury', 'Blood Mercury', 'Mercury, Whole Blood', 'Hg']],
  ['14334-7', 'Lithium', 'Lithium [Moles/volume] in Serum or Plasma', 'mmol/L', SP, ['Lithium, Serum', 'Li']],
  ['10535-3', 'Digoxin', 'Digoxin [Mass/volume] in Serum or Plasma', 'ng/mL', SP, ['Digoxin, Serum', 'Lanoxin']],
  ['4086-5', 'Valproic Acid', 'Valproate [Mass/volume] in Serum or Plasma', 'ug/mL', SP, ['Valproate', 'Depakote', 'Valproic Acid, Total']],
  ['3968-5', 'Phenytoin', 'Phenytoin [Mass/volume] in Serum or Plasma', 'ug/mL', SP, ['Dilantin', 'Phenytoin, Total']],
  ['3432-2', 'Carbamazepine', 'Carbamazepine [Mass/volume] in Serum or Plasma', 'ug/mL', SP, ['Tegretol', 'Carbamazepine, Total']],
  ['4092-3', 'Vancomycin, Trough', 'Vancomycin [Mass/volume] in Serum or Plasma --trough', 'ug/mL', SP, ['Vancomycin Trough', 'Vanco Trough']],
  ['11253-2', 'Tacrolimus', 'Tacrolimus [Mass/volume] in Blood', 'ng/mL', B, ['FK506', 'Prograf', 'Tacrolimus, Whole Blood']],
  ['3520-4', 'Cyclosporine', 'Cyclosporine [Mass/volume] in Blood', 'ng/mL', B, ['Ciclosporin', 'Cyclosporin A', 'Cyclosporine, Whole Blood']],
  ['3298-7', 'Acetaminophen', 'Acetaminophen [Mass/volume] in Serum or Plasma', 'ug/mL', SP, ['Paracetamol', 'Tylenol', 'Acetaminophen Level']],
  ['4024-6', 'Salicylate', 'Salicylates [Mass/volume] in Serum or Plasma', 'mg/dL', SP, ['Salicylates', 'Aspirin Level', 'Salicylate Level']],
  ['19261-7', 'Amphetamines Screen, Urine', 'Amphetamines [Presence] in Urine by Screen method', null, U, ['Amphetamines', 'Amphetamine Screen']],
  ['14316-4', 'Benzodiazepines Screen, Urine', 'Benzodiazepines [Presence] in Urine by Screen method', null, U, ['Benzodiazepines', 'Benzodiazepine Screen']],
  ['18282-4', 'Cannabinoids Screen, Urine', 'Cannabinoids [Presence] in Urine by Screen method', null, U, ['Cannabinoids', 'THC', 'Marijuana Metabolite', 'Cannabinoid Screen']],
  ['3397-7', 'Cocaine Metabolite, Urine', 'Cocaine [Presence] in Urine', null, U, ['Cocaine', 'Cocaine Metabolites', 'Benzoylecgonine']],
  ['19295-5', 'Opiates Screen, Urine', 'Opiates [Presence] in Urine by Screen method', null, U, ['Opiates', 'Opiate Screen']],
];

export const TOXICOLOGY = toCurated(ENTRIES);
