// Import rules, the part of `npm run lint` after eslint: node scripts/check-dependencies.mjs
//
// 1. dependency-cruiser with .dependency-cruiser.cjs (module-level rules: workflows, activities,
//    controllers, root files, file-level cycles), ignoring the known violations listed in
//    .dependency-cruiser-known-violations.json.
// 2. Folder-level cycles, on the import graph dependency-cruiser built. dependency-cruiser has a
//    folder scope of its own, but it nests folders (src/ contains src/orders/) so it misses a
//    module importing a root file like src/core.module.ts, and its --ignore-known does not apply
//    to folder rules. Here a folder is a top-level unit: src/<name>/ (subfolders included),
//    each file directly in src/ on its own, workflows/, activities/, scripts/. Two of them must
//    never reach each other. KNOWN_FOLDER_EDGES names the imports that still close a cycle.
//
// Exit code 1 when a rule is broken. Prints the folder graph with --graph.
import { cruise, format } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import console from 'node:console';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = ['src', 'workflows', 'activities', 'scripts'];
const CONFIG = './.dependency-cruiser.cjs';
const BASELINE = '.dependency-cruiser-known-violations.json';

/**
 * Folder imports that still close a cycle, each with the change that removes it. The check
 * ignores these edges; any other cycle fails. Delete an entry once its imports are gone (the
 * check says so when one is no longer needed).
 */
/* None left: each entry was { from, to, why } with the change that removes it. */
const KNOWN_FOLDER_EDGES = [];

/** The folder (top-level unit) a file belongs to, or null for what is not ours (packages, Node). */
export function folderOf(path) {
  const inSrc = /^src\/([^/]+)\//.exec(path);
  if (inSrc) return `src/${inSrc[1]}`;
  if (/^src\/[^/]+$/.test(path)) return path;
  const top = /^(workflows|activities|scripts)\//.exec(path);
  return top ? top[1] : null;
}

function knownEdge(from, to) {
  return KNOWN_FOLDER_EDGES.find((edge) => edge.from === from && (edge.to === to || (edge.to.endsWith('/*') && to.startsWith(edge.to.slice(0, -1)))));
}

/** Folder graph: from -> to -> example imports (file -> file). */
function folderGraph(modules) {
  const graph = new Map();
  for (const module of modules) {
    const from = folderOf(module.source);
    if (!from) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    for (const dependency of module.dependencies) {
      const to = folderOf(dependency.resolved);
      if (!to || to === from) continue;
      const edges = graph.get(from);
      if (!edges.has(to)) edges.set(to, []);
      edges.get(to).push(`${module.source} -> ${dependency.resolved}${dependency.dependencyTypes.includes('type-only') ? ' (type)' : ''}`);
      if (!graph.has(to)) graph.set(to, new Map());
    }
  }
  return graph;
}

/** Strongly connected components with more than one folder (Tarjan). */
function cycles(graph, skip) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (node) => {
    state.set(node, { index, low: index, onStack: true });
    index += 1;
    stack.push(node);
    for (const next of graph.get(node).keys()) {
      if (skip(node, next)) continue;
      if (!state.has(next)) {
        visit(next);
        state.get(node).low = Math.min(state.get(node).low, state.get(next).low);
      } else if (state.get(next).onStack) {
        state.get(node).low = Math.min(state.get(node).low, state.get(next).index);
      }
    }
    if (state.get(node).low === state.get(node).index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        state.get(member).onStack = false;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

/** One shortest path start -> ... -> start inside a component. */
function loopThrough(graph, component, skip) {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of graph.get(node).keys()) {
      if (!members.has(next) || skip(node, next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = node; at !== null; at = previous.get(at)) path.push(at);
        return path.reverse();
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return component;
}

function checkFolderCycles(modules) {
  const graph = folderGraph(modules);
  const skipKnown = (from, to) => knownEdge(from, to) !== undefined;
  const broken = cycles(graph, skipKnown);
  const lines = [];
  for (const component of broken) {
    const loop = loopThrough(graph, component, skipKnown);
    lines.push(`  error no-folder-cycles: ${loop.join(' → ')}`);
    for (let i = 0; i + 1 < loop.length; i += 1) {
      const imports = graph.get(loop[i]).get(loop[i + 1]);
      lines.push(`      ${loop[i]} → ${loop[i + 1]}: ${imports.slice(0, 3).join(', ')}${imports.length > 3 ? `, … (${imports.length} imports)` : ''}`);
    }
    if (component.length > loop.length - 1) lines.push(`      (the cycle joins ${component.join(', ')})`);
  }
  // A known edge is still needed while dropping it from the exceptions would close a cycle.
  const unused = KNOWN_FOLDER_EDGES.filter((known) => {
    const withOnly = (from, to) => knownEdge(from, to) !== undefined && knownEdge(from, to) !== known;
    const edges = [...graph.entries()].flatMap(([from, targets]) => [...targets.keys()].map((to) => [from, to]));
    const used = edges.filter(([from, to]) => knownEdge(from, to) === known);
    if (used.length === 0) return true;
    const closing = cycles(graph, withOnly);
    return !used.some(([from, to]) => closing.some((component) => component.includes(from) && component.includes(to)));
  });
  return { broken, lines, unused, graph };
}

async function main() {
  process.chdir(ROOT);
  const options = await extractDepcruiseOptions(CONFIG);
  if (existsSync(BASELINE)) options.knownViolations = JSON.parse(readFileSync(BASELINE, 'utf8'));
  const transpile = { tsConfig: extractTSConfig(options.tsConfig?.fileName ?? 'tsconfig.json') };
  const { output } = await cruise(SCANNED, { ...options, outputType: 'json' }, {}, transpile);
  const result = typeof output === 'string' ? JSON.parse(output) : output;

  const report = await format(result, { outputType: 'err-long' });
  process.stdout.write(report.output);
  const moduleErrors = result.summary.error;

  const folders = checkFolderCycles(result.modules);
  if (process.argv.includes('--graph')) {
    for (const [from, targets] of [...folders.graph.entries()].sort()) console.log(`${from} -> ${[...targets.keys()].sort().join(', ')}`);
  }
  if (folders.lines.length > 0) {
    console.log(`\n${folders.lines.join('\n')}\n`);
    console.log(
      `x ${folders.broken.length} folder-level import cycle(s). Move the shared piece into the folder both use, ` +
        'or let the lower folder own an interface the upper one implements (src/README.md).',
    );
  } else {
    console.log(
      `✔ no folder-level import cycles (${KNOWN_FOLDER_EDGES.length - folders.unused.length} known exceptions, listed in scripts/check-dependencies.mjs)`,
    );
  }
  for (const known of folders.unused) {
    console.log(`  warn: the known folder edge ${known.from} → ${known.to} no longer closes a cycle: delete it from KNOWN_FOLDER_EDGES`);
  }
  process.exitCode = moduleErrors > 0 || folders.broken.length > 0 ? 1 : 0;
}

await main();
