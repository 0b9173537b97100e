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
import { keysetOfMicros, type SampleFields, SeriesLines } from './wearable-ndjson';

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
    let last: { seriesId: string; tsUs: string } | undefined;
    // Lines are written into the part's buffer as they are made: joining a part's strings cost more than making them.
    let part = new PartBuffer(step.partRows * 800);
    let rows = 0;
    let writing: Promise<boolean> = Promise.resolve(true);
    const flush = async (): Promise<boolean> => {
      const written = await writing;
      if (!written) return false;
      if (part.lines > 0) {
        const { lines, bytes } = part;
        const partSeq = seq++;
        writing = sealPart(this.cipher, bytes()).then((content) => this.exports.writePart(exportId, 'Observation', partSeq, lines, content));
        // Awaited at the next flush; handled now so that a failure meanwhile is not an unhandled rejection.
        writing.catch(() => undefined);
        part = new PartBuffer(step.partRows * 800);
      }
      rows = 0;
      return true;
    };
    const fields: SampleFields = { tsUs: '', endUs: null, value: null, diastolic: null, updatedUs: '' };
    const position = (): Cursor => (last ? { part: 'wearable', at: keysetOfMicros(last.tsUs), id: last.seriesId, n: 0 } : step.position);

    for (;;) {
      const series = await this.reads.seriesFrom(scope, resources, from, SERIES_BATCH);
      const bySeries = new Map(series.map((row, index) => [row.id, { lines: new SeriesLines(row), index }]));
      let read = 0;
      let order = -1;
      let rest = '';
      for await (const chunk of this.reads.copySamples(
        series.map((row) => row.id),
        after,
        lastUpdated,
        budget,
      )) {
        const text = rest + chunk.toString('latin1');
        let start = 0;
        for (let end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) {
          // Six tab-separated fields: series, ts, end_ts, value, diastolic, updated_at (\N for null).
          const t1 = text.indexOf('\t', start);
          const t2 = text.indexOf('\t', t1 + 1);
          const t3 = text.indexOf('\t', t2 + 1);
          const t4 = text.indexOf('\t', t3 + 1);
          const t5 = text.indexOf('\t', t4 + 1);
          const seriesId = text.slice(start, t1);
          const target = bySeries.get(seriesId);
          fields.tsUs = text.slice(t1 + 1, t2);
          // The COPY reads the series in the order given and each by time; anything else would lose the position.
          if (!target || target.index < order || (target.index === order && Number(fields.tsUs) <= Number(last!.tsUs))) {
            throw new Error(`FHIR export ${exportId}: samples out of storage order at series ${seriesId}`);
          }
          order = target.index;
          fields.endUs = nullable(text.slice(t2 + 1, t3));
          fields.value = nullable(text.slice(t3 + 1, t4));
          fields.diastolic = nullable(text.slice(t4 + 1, t5));
          fields.updatedUs = text.slice(t5 + 1, end);
          const line = target.lines.line(fields);
          if (line !== null) part.add(line);
          last = { seriesId, tsUs: fields.tsUs };
          read++;
          // A part ends only between samples, so that a step's last part ends at the position it hands back.
          if (++rows >= step.partRows && !(await flush())) return { seq, position: step.position, gone: true };
        }
        rest = text.slice(start);
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

/** A COPY text field: \N is null. */
const nullable = (field: string): string | null => (field === '\\N' ? null : field);

/** A part's NDJSON, UTF-8, in one buffer that doubles when full. */
class PartBuffer {
  lines = 0;
  private length = 0;
  private buffer: Buffer;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  add(line: string): void {
    if (this.length + line.length * 3 > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + line.length * 3));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.length += this.buffer.write(line, this.length);
    this.lines++;
  }

  readonly bytes = (): Buffer => this.buffer.subarray(0, this.length);
}
