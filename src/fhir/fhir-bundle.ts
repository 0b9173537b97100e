import type { BundleLink, Resource } from '@medplum/fhirtypes';
import { FhirError } from './fhir-errors';
import { type Cursor, encodeFhirCursor } from './fhir-search';

export const FHIR_JSON = 'application/fhir+json; charset=utf-8';

/**
 * A resource already written as JSON (wearable samples, cut from their series' template:
 * export/wearable-ndjson.ts), with the type and id a Bundle entry's fullUrl needs. A search page
 * of samples is its text, never objects; serialised again by accident, it is still the resource.
 */
export class SerializedResource {
  constructor(
    readonly resourceType: 'Observation',
    readonly id: string,
    readonly json: string,
  ) {}

  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

/** What a search page holds: resources, or resources already written. */
export type PageEntry = Resource | SerializedResource;

/** An entry's JSON text. */
export const resourceJson = (resource: PageEntry): string => (resource instanceof SerializedResource ? resource.json : JSON.stringify(resource));

/** A page of search results: the matches, what `_include` added, and where the next page starts. */
export interface SearchPage {
  matches: PageEntry[];
  included?: PageEntry[];
  next: Cursor | null;
}

/**
 * A searchset Bundle, as the JSON text the API answers (entries of a wearable page are written
 * already; the rest is JSON.stringify's): `self` is the request as made, `next` the same query
 * with the next page's cursor (keyset paging: a page is "entries strictly after the last one
 * shown", so entries added while a consumer pages are seen once or not at all, never twice). No
 * `total`: counting every match of a large search would cost more than the page.
 */
export function searchsetBundle(base: string, path: string, query: Record<string, string | string[] | undefined>, page: SearchPage): string {
  const link: BundleLink[] = [{ relation: 'self', url: urlOf(base, path, query) }];
  if (page.next) link.push({ relation: 'next', url: urlOf(base, path, { ...query, _cursor: encodeFhirCursor(page.next) }) });
  const head = JSON.stringify({ resourceType: 'Bundle', type: 'searchset', timestamp: new Date().toISOString(), link });
  const entries = [
    ...page.matches.map((resource) => entryJson(base, resource, 'match')),
    ...(page.included ?? []).map((resource) => entryJson(base, resource, 'include')),
  ];
  return `${head.slice(0, -1)},"entry":[${entries.join(',')}]}`;
}

function entryJson(base: string, resource: PageEntry, mode: 'match' | 'include'): string {
  return `{"fullUrl":${JSON.stringify(`${base}/${resource.resourceType}/${resource.id}`)},"resource":${resourceJson(resource)},"search":{"mode":"${mode}"}}`;
}

function urlOf(base: string, path: string, query: Record<string, string | string[] | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, item);
  }
  const search = params.toString();
  return `${base}/${path}${search ? `?${search}` : ''}`;
}

/** The next page's cursor: the last shown row's position, when one more row was read than shown. */
export function nextOf<T>(rows: T[], limit: number, position: (row: T) => Cursor): Cursor | null {
  return rows.length > limit ? position(rows[limit - 1]) : null;
}

/** One source of a search that spans several (Observation: lab results, parsed reports, wearables, sleep). */
export interface SearchPart {
  name: string;
  run: (count: number, cursor: Cursor | undefined) => Promise<SearchPage>;
}

/** The time part of a cursor that starts a part from its beginning (n = -1). */
const PART_START = '1970-01-01T00:00:00.000000';

/** A cursor that starts `part` from its beginning. */
export const partStart = (part: string): Cursor => ({ part, at: PART_START, id: '0', n: -1 });

/**
 * A page over `parts` searched one after the other: a page may span parts, and its cursor names
 * the part it continues (a cursor with n = -1 starts a part from its beginning). `firstPage`, without
 * a cursor: parts[0]'s page of `count`, already read.
 */
export async function pageAcross(parts: SearchPart[], count: number, cursor: Cursor | undefined, firstPage?: SearchPage): Promise<SearchPage> {
  const first = cursor ? parts.findIndex((part) => part.name === cursor.part) : 0;
  if (first < 0) throw FhirError.invalid('_cursor: pass it exactly as a next link gave it, with the same search parameters.', '_cursor');
  const matches: PageEntry[] = [];
  const included: PageEntry[] = [];
  for (let index = first; index < parts.length; index++) {
    const remaining = count - matches.length;
    if (remaining === 0) return { matches, included, next: partStart(parts[index].name) };
    // firstPage: the first part's page, read beforehand for the whole count (FhirObservations reads ahead).
    const page =
      index === 0 && !cursor && firstPage ? firstPage : await parts[index].run(remaining, index === first && cursor && cursor.n >= 0 ? cursor : undefined);
    matches.push(...page.matches);
    included.push(...(page.included ?? []));
    if (page.next) return { matches, included, next: page.next };
  }
  return { matches, included, next: null };
}
