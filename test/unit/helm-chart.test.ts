import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { configRows } from '../../scripts/docs-config';
import { HL7_SPLIT_ROLES, WORKER_ROLES } from '../../src/config/env-values';

/**
 * The Helm chart against the config schema, without Helm: every setting a process cannot start
 * without reaches every pod, every setting the chart names exists, and values.yaml describes
 * each of its values. scripts/helm-check.sh renders and validates the manifests with Helm.
 */
const CHART = join(__dirname, '../../deploy/helm/labflow');

/** Settings whose schema default is this machine's (127.0.0.1): a cluster must give its own. */
const LOCAL_DEFAULTS = ['DATABASE_URL', 'REDIS_URL', 'TEMPORAL_ADDRESS', 'PUBLIC_API_URL'];

function templatesText(): string {
  const dir = join(CHART, 'templates');
  return readdirSync(dir)
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
}

/** The environment variable names the chart sets: `- name: X` entries and the ConfigMap's keys (labflow.configData). */
function namesTheChartSets(templates: string): Set<string> {
  const names = new Set<string>();
  for (const match of templates.matchAll(/- name: ([A-Z][A-Z0-9_]+)\b/g)) names.add(match[1]);
  const configData = /define "labflow\.configData"([\s\S]*?)\{\{- end -\}\}\s*$/m.exec(templates)?.[1] ?? '';
  expect(configData).toContain('$data');
  for (const match of configData.matchAll(/"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"/g)) names.add(match[1]);
  return names;
}

/** Settings a process needs that the chart does not set, given the schema's rows. */
function missingFromChart(rows: { name: string; defaultText: string }[], templates: string): string[] {
  const set = namesTheChartSets(templates);
  const needed = [...rows.filter((row) => row.defaultText === '**required**').map((row) => row.name), ...LOCAL_DEFAULTS];
  return needed.filter((name) => !set.has(name));
}

function valuesDocument(file: string) {
  const document = parseDocument(readFileSync(join(CHART, file), 'utf8'));
  expect(document.errors).toEqual([]);
  return document;
}

/** Paths of values without a comment above them (`workers.hl7.service.port`). */
function undocumented(node: Node | null, path: string[] = []): string[] {
  if (isMap(node)) {
    return node.items.flatMap((pair, index) => {
      const key = isScalar(pair.key) ? String(pair.key.value) : '?';
      const here = [...path, key];
      // The parser keeps the comment above a map's first key on the map itself.
      const comment = (isScalar(pair.key) ? pair.key.commentBefore : undefined) ?? (index === 0 ? node.commentBefore : undefined);
      const own = comment?.trim() ? [] : [here.join('.')];
      return [...own, ...undocumented(pair.value as Node | null, here)];
    });
  }
  if (isSeq(node))
    return node.items.flatMap((item, index) => undocumented(item as Node | null, [...path, String(index)]).filter((p) => !p.endsWith(`.${index}.name`)));
  return [];
}

describe('the Helm chart and the config schema', () => {
  const rows = configRows();
  const known = new Set(rows.map((row) => row.name));

  it('sets every setting the schema requires, and each one whose default is this machine', () => {
    expect(missingFromChart(rows, templatesText())).toEqual([]);
  });

  it('fails when the schema requires a setting the chart does not give', () => {
    const withNew = [...rows, { name: 'NEWLY_REQUIRED_SETTING', defaultText: '**required**' }];
    expect(missingFromChart(withNew, templatesText())).toEqual(['NEWLY_REQUIRED_SETTING']);
  });

  it('names only settings the schema knows, in its templates and in both values files', () => {
    const names = [...namesTheChartSets(templatesText())];
    for (const file of ['values.yaml', 'examples/production.yaml']) {
      const config = valuesDocument(file).toJS().config as Record<string, unknown>;
      names.push(...Object.keys(config));
    }
    expect(names.filter((name) => !known.has(name))).toEqual([]);
  });

  it('describes every value in values.yaml', () => {
    expect(undocumented(valuesDocument('values.yaml').contents as Node)).toEqual([]);
  });

  it('runs each worker role in exactly one worker Deployment (the sandbox HL7 lab is not for clusters; hl7 runs whole, not split)', () => {
    const workers = valuesDocument('values.yaml').toJS().workers as Record<string, { roles: string }>;
    const roles = Object.values(workers).flatMap((worker) => worker.roles.split(','));
    expect([...roles].sort()).toEqual(WORKER_ROLES.filter((role) => role !== 'sandbox-hl7-lab' && !HL7_SPLIT_ROLES.includes(role)).sort());
  });
});
