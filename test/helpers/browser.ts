import { type BrowserContext, chromium } from 'playwright-core';
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
export async function launchBrowser(options: { width?: number; height?: number; bypassCSP?: boolean } = {}): Promise<{ context: BrowserContext; close(): Promise<void> }> {
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
