import type { Bundle, BundleEntry, BundleLink, Resource } from '@medplum/fhirtypes';
import { type Cursor, encodeFhirCursor } from './fhir-search';

export const FHIR_JSON = 'application/fhir+json; charset=utf-8';

/** A page of search results: the matches, what `_include` added, and where the next page starts. */
export interface SearchPage {
  matches: Resource[];
  included?: Resource[];
  next: Cursor | null;
}

/**
 * A searchset Bundle: `self` is the request as made, `next` the same query with the next page's
 * cursor (keyset paging: a page is "entries strictly after the last one shown", so entries added
 * while a consumer pages are seen once or not at all, never twice). No `total`: counting every
 * match of a large search would cost more than the page.
 */
export function searchsetBundle(base: string, path: string, query: Record<string, string | string[] | undefined>, page: SearchPage): Bundle {
  const link: BundleLink[] = [{ relation: 'self', url: urlOf(base, path, query) }];
  if (page.next) link.push({ relation: 'next', url: urlOf(base, path, { ...query, _cursor: encodeFhirCursor(page.next) }) });
  const entry: BundleEntry[] = [
    ...page.matches.map((resource) => ({ fullUrl: `${base}/${resource.resourceType}/${resource.id}`, resource, search: { mode: 'match' as const } })),
    ...(page.included ?? []).map((resource) => ({
      fullUrl: `${base}/${resource.resourceType}/${resource.id}`,
      resource,
      search: { mode: 'include' as const },
    })),
  ];
  return { resourceType: 'Bundle', type: 'searchset', timestamp: new Date().toISOString(), link, entry };
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
