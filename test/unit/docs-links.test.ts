import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { anchorOf } from '../../scripts/docs-config';

/** Every relative link of the docs points at a file that exists, and at a heading of it when it names one. */

const ROOT = resolve(__dirname, '..', '..');
const DOCS = [
  'README.md',
  'src/README.md',
  'src/events/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text without fenced blocks and inline code, where brackets are not links. */
const prose = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

function linksOf(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

/** Anchors of a file's headings as GitHub makes them (a repeated heading gets -1, -2…). */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = anchorOf(match[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const link of linksOf(readFileSync(join(ROOT, file), 'utf8'))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // http:, https:, mailto:
    const [path, anchor] = link.split('#') as [string, string | undefined];
    const target = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURIComponent(path));
    if (!existsSync(target)) {
      broken.push(`${file}: ${link} (no ${relative(ROOT, target)})`);
      continue;
    }
    if (anchor !== undefined && statSync(target).isFile() && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
      broken.push(`${file}: ${link} (no heading #${anchor} in ${relative(ROOT, target)})`);
    }
  }
  return broken;
}

describe('links in the docs', () => {
  it.each(DOCS)('%s: every relative link resolves', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('reads links and anchors as GitHub does', () => {
    expect(linksOf('See [a](docs/a.md#b-c) and `[not](a link)`.\n```\n[nor](this)\n```\n')).toEqual(['docs/a.md#b-c']);
    expect([...anchorsOf('# Logs: request ids\n## `npm run up`\n## Logs: request ids\n```\n# not a heading\n```\n')]).toEqual([
      'logs-request-ids',
      'npm-run-up',
      'logs-request-ids-1',
    ]);
  });

  it('README.md opens with the two commands', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').startsWith('```\nnpm run up\nnpm test\n```\n')).toBe(true);
  });
});
