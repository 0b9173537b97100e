import { Injectable } from '@nestjs/common';
import { DEMO_PROVIDERS, type DemoProvider, generateDemoData } from './sandbox-physiology';
import type { SourceAdapter, SourceBatch, SourceConnection } from './source-adapter';

const DAY_MS = 86_400_000;
/** Two whole days: every resource a demo provider generates appears in them (sleep needs a night). */
const CATALOGUE_WINDOW = { from: Date.UTC(2026, 0, 5), to: Date.UTC(2026, 0, 5) + 2 * DAY_MS };

/** The demo providers of Junction's sandbox, backed by generated physiology (sandbox-physiology.ts). */
@Injectable()
export class SandboxSourceAdapter implements SourceAdapter {
  private readonly catalogue = new Map<string, Array<Omit<SourceBatch, 'data'>>>();

  providers(): readonly string[] {
    return DEMO_PROVIDERS;
  }

  resources(provider: string): ReadonlyArray<Omit<SourceBatch, 'data'>> {
    let resources = this.catalogue.get(provider);
    if (!resources) {
      // What the generator produces is the catalogue: derived, so the two never disagree.
      const batches = generateDemoData({ provider: provider as DemoProvider, seed: 'catalogue', timeZone: 'UTC', ...CATALOGUE_WINDOW });
      resources = batches.map(({ kind, resource, sourceType }) => ({ kind, resource, sourceType }));
      this.catalogue.set(provider, resources);
    }
    return resources;
  }

  async pull(connection: SourceConnection, from: number, to: number): Promise<SourceBatch[]> {
    return generateDemoData({ provider: connection.provider as DemoProvider, seed: connection.seed, timeZone: connection.timeZone, from, to });
  }
}
