import { Injectable } from '@nestjs/common';
import type { FhirExportStep } from '../../../workflows/contract';
import { PhiCipher } from '../../common/crypto';
import { partStart } from '../fhir-bundle';
import { FhirExportReadModel } from '../fhir-export-read-model';
import type { Scope } from '../fhir-read-model';
import type { Cursor, DateBound } from '../fhir-search';
import { wearableResourcesFor } from '../wearable-mapping';
import { FhirExportsRepository } from './fhir-exports.repository';
import { sealPart } from './ndjson-parts';
import { CopyLine, PartBuffer } from './copy-line';
import { keysetOfMicros, SeriesLines } from './wearable-ndjson';

/** Series read per COPY. */
const SERIES_BATCH = 500;
/** A part of wearable samples holds this many pages' worth (each sealed part is one INSERT; ~650 bytes a line). */
export const WEARABLE_PART_PAGES = 25;
/** The Observation search's part after wearable samples (FhirObservations.search). */
const NEXT_PART = 'sleep';

/**
 * The bulk export's wearable samples, the bulk of most teams' Observations, written without the
 * search's page of row objects: the samples stream from one COPY per batch of series (in storage
 * order, series by series, as FhirExportReadModel.samplesBySeries reads them), each line is cut
 * from its series' template (wearable-ndjson.ts: the same bytes as the mapping writes), and lines
 * are sealed a large part at a time, the next part read while the last one is written. A step
 * reads at most `parts` parts of samples and hands back the position of the last one, the
 * search's cursor, so a retried step writes the same parts from the same place.
 */
@Injectable()
export class FhirExportWearables {
  constructor(
    private readonly reads: FhirExportReadModel,
    private readonly exports: FhirExportsRepository,
    private readonly cipher: PhiCipher,
  ) {}

  async write(
    exportId: string,
    scope: Scope,
    lastUpdated: DateBound[],
    step: { seq: number; position: Cursor; parts: number; partRows: number },
  ): Promise<FhirExportStep> {
    const resources = wearableResourcesFor(undefined, undefined);
    let { seq } = step;
    let budget = step.parts * step.partRows;
    let after = step.position.n >= 0 ? { seriesId: step.position.id, at: step.position.at } : undefined;
    let from = after ? { id: after.seriesId, inclusive: true } : null;
    // The last sample read: its series and time (two variables, not an object a sample).
    let lastSeries: string | undefined;
    let lastTs: number | bigint = 0;
    // Lines are written into the part's buffer as they are made: joining a part's strings cost more than making them.
    // Two buffers take turns: one filled while the other is sealed (a new 20 MB buffer a part cost its page faults).
    let part = new PartBuffer(step.partRows * 800);
    let spare: PartBuffer | null = null;
    let rows = 0;
    let writing: Promise<boolean> = Promise.resolve(true);
    const flush = async (): Promise<boolean> => {
      // Once the last part is written, its buffer is free again.
      const written = await writing;
      if (!written) return false;
      if (part.lines > 0) {
        const sealing = part;
        const partSeq = seq++;
        writing = sealPart(this.cipher, sealing.bytes()).then((content) => this.exports.writePart(exportId, 'Observation', partSeq, sealing.lines, content));
        // Awaited at the next flush; handled now so that a failure meanwhile is not an unhandled rejection.
        writing.catch(() => undefined);
        part = spare?.clear() ?? new PartBuffer(step.partRows * 800);
        spare = sealing;
      }
      rows = 0;
      return true;
    };
    const row = new CopyLine();
    const position = (): Cursor => (lastSeries !== undefined ? { part: 'wearable', at: keysetOfMicros(String(lastTs)), id: lastSeries, n: 0 } : step.position);

    for (;;) {
      const series = await this.reads.seriesFrom(scope, resources, from, SERIES_BATCH);
      const bySeries = new Map(series.map((row, index) => [row.id, { lines: new SeriesLines(row), index }]));
      let read = 0;
      let order = -1;
      let target: { lines: SeriesLines; index: number } | undefined;
      let targetSeries: string | undefined;
      let rest: Buffer | null = null;
      for await (const chunk of this.reads.copySamples(
        series.map((row) => row.id),
        after,
        lastUpdated,
        budget,
      )) {
        const bytes: Buffer = rest ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
        let start = 0;
        for (let end = row.locate(bytes, start); end >= 0; start = end + 1, end = row.locate(bytes, start)) {
          // Series come one after the other: a string only when the series changes.
          const seriesId = row.seriesIs(targetSeries) ? targetSeries! : row.series();
          if (seriesId !== targetSeries) {
            target = bySeries.get(seriesId);
            targetSeries = seriesId;
          }
          const ts = row.tsKey();
          // The COPY reads the series in the order given and each by time; anything else would lose the position.
          if (!target || target.index < order || (target.index === order && ts <= lastTs)) {
            throw new Error(`FHIR export ${exportId}: samples out of storage order at series ${seriesId}`);
          }
          order = target.index;
          target.lines.write(part, row);
          lastSeries = seriesId;
          lastTs = ts;
          read++;
          // A part ends only between samples, so that a step's last part ends at the position it hands back.
          if (++rows >= step.partRows && !(await flush())) return { seq, position: step.position, gone: true };
        }
        rest = start < bytes.length ? bytes.subarray(start) : null;
      }
      budget -= read;
      if (budget === 0 || series.length < SERIES_BATCH) {
        if (!(await flush()) || !(await writing)) return { seq, position: step.position, gone: true };
        return { seq, position: budget === 0 ? position() : partStart(NEXT_PART), gone: false };
      }
      from = { id: series[series.length - 1].id, inclusive: false };
      after = undefined;
    }
  }
}
