import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's Chromium (scripts/stack.sh installs it when missing); CHROMIUM_PATH overrides. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Quiet, offline-friendly flags: no first-run UI, no background traffic the measurements would count. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where screenshots go (git-ignored), one folder per test file. */
export function screenshotDir(name: string): string {
  const dir = join(__dirname, '..', '..', 'test-output', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A browser with a fresh profile (its own user-data-dir, deleted on close). `bypassCSP` (default on) lets the
 * tests inject axe-core into pages whose Content-Security-Policy forbids scripts.
 */
export async function launchBrowser(
  options: { width?: number; height?: number; bypassCSP?: boolean } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'labflow-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: options.width ?? 1024, height: options.height ?? 900 },
    bypassCSP: options.bypassCSP ?? true,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const AXE = require.resolve('axe-core/axe.min.js');

/** axe-core in the page: the serious and critical violations (id and the first offending element). */
export async function seriousViolations(page: Page): Promise<Array<{ id: string; target: unknown }>> {
  await page.addScriptTag({ path: AXE });
  // Strings run in the page (this project's TypeScript has no DOM types).
  const violations = await page.evaluate<Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }>>(
    'axe.run(document).then((result) => result.violations)',
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, target: violation.nodes[0]?.target }));
}

/** axe-core in the page: every violation, whatever its impact (id, impact and the first offending element). */
export async function axeViolations(page: Page): Promise<Array<{ id: string; impact: string; target: unknown }>> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate<Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }>>(
    'axe.run(document).then((result) => result.violations)',
  );
  return violations.map((violation) => ({ id: violation.id, impact: violation.impact, target: violation.nodes[0]?.target }));
}
