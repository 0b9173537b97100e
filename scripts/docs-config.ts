/**
 * npm run docs:config [-- --check]: writes docs/configuration.md from the environment schema
 * (src/config/environment.ts), so the reference cannot drift from what the processes parse.
 * Every variable needs a description (`.meta(doc(group, text))`, or `.describe(text)`, which
 * lists it under "Other"); one without stops the script. `--check` writes nothing and exits 1
 * when the file differs from what it would write (`npm run lint` runs it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CONFIG_GROUPS, envSchema } from '../src/config/environment';
import { TEMPORAL_CONNECTION_VARIABLES } from '../src/config/temporal-connection';

/** The repository root, whether this runs from scripts/ (ts-node) or dist/scripts/ (the build). */
const ROOT = join(__dirname, '..', __dirname.endsWith(join('dist', 'scripts')) ? '..' : '');
export const CONFIGURATION_DOC = join(ROOT, 'docs', 'configuration.md');

const OTHER = 'Other';

export interface ConfigRow {
  name: string;
  section: string;
  defaultText: string;
  description: string;
}

type Meta = { description?: string; group?: string; unset?: string };
type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; defaultValue?: unknown };

const defOf = (schema: z.ZodType) => (schema as unknown as { def: Def }).def;

/** The schema and the ones it wraps (default, optional, prefault, pipe…), outermost first. */
function layers(schema: z.ZodType): z.ZodType[] {
  const out: z.ZodType[] = [];
  for (let current: z.ZodType | undefined = schema; current;) {
    out.push(current);
    const def = defOf(current);
    current = def.innerType ?? def.in;
  }
  return out;
}

/** Metadata set anywhere on the chain: `.describe()` before `.default()` sits on the inner schema. */
function metaOf(schema: z.ZodType): Meta {
  const meta: Meta = {};
  for (const layer of layers(schema)) {
    const found = (z.globalRegistry.get(layer) ?? {}) as Meta;
    meta.description ??= found.description;
    meta.group ??= found.group;
    meta.unset ??= found.unset;
  }
  return meta;
}

function code(value: string) {
  return value.includes('`') ? `\`\` ${value} \`\`` : `\`${value}\``;
}

function defaultTextOf(schema: z.ZodType, meta: Meta): string {
  for (const layer of layers(schema)) {
    const def = defOf(layer);
    if (def.type === 'default' || def.type === 'prefault') {
      const value = def.defaultValue;
      if (Array.isArray(value)) return value.length === 0 ? '(none)' : code(value.join(','));
      if (value === '') return '(none)';
      return code(String(value));
    }
    if (def.type === 'optional') return meta.unset ?? 'unset';
  }
  return '**required**';
}

/** "One of `a`, `b`." for an enum taken as it is; flags (an enum transformed to a boolean) are said once in the intro. */
function choicesOf(schema: z.ZodType): string {
  const chain = layers(schema);
  if (chain.some((layer) => defOf(layer).type === 'pipe')) return '';
  const values = (chain.find((layer) => defOf(layer).type === 'enum') as unknown as { options: string[] } | undefined)?.options;
  return values ? ` One of ${values.map(code).join(', ')}.` : '';
}

/** One row per variable of the schema, then Temporal's connection settings. Throws naming every undocumented variable. */
export function configRows(schema: z.ZodObject = envSchema): ConfigRow[] {
  const groups: Record<string, string> = CONFIG_GROUPS;
  const missing: string[] = [];
  const rows: ConfigRow[] = [];
  for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const meta = metaOf(field);
    const description = meta.description?.trim();
    if (!description) {
      missing.push(name);
      continue;
    }
    rows.push({
      name,
      section: (meta.group && groups[meta.group]) || OTHER,
      defaultText: defaultTextOf(field, meta),
      description: description + choicesOf(field),
    });
  }
  if (missing.length > 0) {
    throw new Error(
      `src/config/environment.ts: no description for ${missing.join(', ')}. ` +
        `Add .meta(doc('<group>', 'what it means')) (or .describe('what it means')) to each, then run npm run docs:config.`,
    );
  }
  for (const variable of TEMPORAL_CONNECTION_VARIABLES) {
    rows.push({
      name: variable.name,
      section: CONFIG_GROUPS.temporal,
      defaultText: variable.default === undefined ? 'unset' : code(variable.default),
      description: variable.description,
    });
  }
  return rows;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');

/** GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens. */
export const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

export function renderConfigurationDoc(rows: ConfigRow[]): string {
  const sections = [...Object.values(CONFIG_GROUPS), OTHER].filter((section) => rows.some((row) => row.section === section));
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated by `npm run docs:config` from src/config/environment.ts and src/config/temporal-connection.ts. Edit the descriptions there, not this file. -->',
    '',
    'Every process reads these environment variables once at start-up (`src/config/config.ts`).',
    'A bad value stops the process with a message naming the variable.',
    'Durations are written like `500ms`, `30s`, `5m`, `2h`, `7d`.',
    'Flags take `true` or `false` (or `1`, `0`).',
    '`npm run up` keeps its settings in `.labflow/env`; the tests in `.labflow/test.env`.',
    '',
    ...sections.map((section) => `- [${section}](#${anchorOf(section)})`),
    '- [Variables of the scripts](#variables-of-the-scripts)',
    '',
  ];
  for (const section of sections) {
    lines.push(`## ${section}`, '', '| variable | default | meaning |', '|---|---|---|');
    for (const row of rows.filter((candidate) => candidate.section === section)) {
      lines.push(`| \`${row.name}\` | ${cell(row.defaultText)} | ${cell(row.description)} |`);
    }
    lines.push('');
  }
  lines.push(
    '## Variables of the scripts',
    '',
    'Read by `scripts/*.sh` only, not by the processes:',
    '',
    '| variable | default | meaning |',
    '|---|---|---|',
    "| `LABFLOW_TEMPORAL` | `dev` | `dev`: the Temporal CLI's dev server (SQLite). `server`: the Temporal server on PostgreSQL ([Temporal](temporal.md#a-temporal-server-on-postgresql)). |",
    '| `TEMPORAL_CLI_PATH` | unset | The Temporal CLI to use, before `temporal` on `PATH` and `~/.cache/labflow/bin/temporal`. |',
    '| `LABFLOW_CACHE_DIR` | `~/.cache/labflow` | Where the scripts keep the Temporal binaries, its SQLite file and its log. |',
    '',
  );
  return lines.join('\n');
}

function main(args: string[]) {
  const path = CONFIGURATION_DOC;
  let expected: string;
  try {
    expected = renderConfigurationDoc(configRows());
  } catch (error) {
    console.error(`docs:config: ${(error as Error).message}`);
    return 1;
  }
  if (args.includes('--check')) {
    let actual = '';
    try {
      actual = readFileSync(path, 'utf8');
    } catch {
      // a missing file differs like any other
    }
    if (actual === expected) return 0;
    const actualLines = actual.split('\n');
    const line = expected.split('\n').findIndex((text, index) => text !== actualLines[index]);
    console.error(
      `docs:config: docs/configuration.md is not current with src/config/environment.ts (first difference at line ${line + 1}).\n` +
        `  Run npm run docs:config and commit docs/configuration.md.`,
    );
    return 1;
  }
  writeFileSync(path, expected);
  console.log(`docs:config: wrote ${path}`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
