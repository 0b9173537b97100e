// Writes the JSON schemas kubeconform validates the Helm chart's manifests against, from the
// Kubernetes OpenAPI document (api/openapi-spec/swagger.json of the k8s.io/kubernetes Go module,
// which the Go module proxy serves; kubeconform's default schema registry is on GitHub, which
// this machine kind cannot reach).
//
//   node scripts/kubernetes-schemas.mjs <swagger.json> <output folder>
//
// One file per kind and version, named as kubeconform's `{{ .ResourceKind }}{{ .KindSuffix }}`
// template expects (deployment-apps-v1.json, service-v1.json), each pointing into one
// _definitions.json. Strict, as kubeconform's -strict asks of its schemas: an object with declared
// properties refuses any other (a misspelt field is an error, not ignored). The two types that
// Kubernetes writes as strings but accepts as numbers too (IntOrString, Quantity) take both.
import console from 'node:console';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const [swaggerPath, outDir] = process.argv.slice(2);
if (!swaggerPath || !outDir) {
  console.error('usage: node scripts/kubernetes-schemas.mjs <swagger.json> <output folder>');
  process.exit(2);
}

const STRING_OR_NUMBER = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { oneOf: [{ type: 'string' }, { type: 'integer' }] },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
};

/** A deep copy with refs pointing at `refPrefix` and every object with properties closed. */
function strict(node, refPrefix) {
  if (Array.isArray(node)) return node.map((item) => strict(item, refPrefix));
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') out.$ref = value.replace('#/definitions/', `${refPrefix}#/definitions/`);
    else out[key] = strict(value, refPrefix);
  }
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

const { definitions } = JSON.parse(readFileSync(swaggerPath, 'utf8'));
mkdirSync(outDir, { recursive: true });
const shared = {};
for (const [name, definition] of Object.entries(definitions)) shared[name] = STRING_OR_NUMBER[name] ?? strict(definition, '');
writeFileSync(join(outDir, '_definitions.json'), JSON.stringify({ definitions: shared }));

let files = 0;
for (const definition of Object.values(definitions)) {
  for (const gvk of definition['x-kubernetes-group-version-kind'] ?? []) {
    const group = gvk.group ? `-${gvk.group.split('.')[0].toLowerCase()}` : '';
    const file = `${gvk.kind.toLowerCase()}${group}-${gvk.version.toLowerCase()}.json`;
    const schema = { ...strict(definition, '_definitions.json'), $schema: 'http://json-schema.org/schema#' };
    // apiVersion and kind must name this very kind, as in kubeconform's own schemas.
    const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
    if (schema.properties?.apiVersion) schema.properties.apiVersion = { type: 'string', enum: [apiVersion] };
    if (schema.properties?.kind) schema.properties.kind = { type: 'string', enum: [gvk.kind] };
    writeFileSync(join(outDir, file), JSON.stringify(schema));
    files += 1;
  }
}
console.log(`[labflow] ${files} Kubernetes schemas written to ${outDir}`);
