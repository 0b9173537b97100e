/** Sandbox reference data: zip centroids, phlebotomy coverage and Quest PSC sites. */

export interface ZipCentroid {
  lat: number;
  lng: number;
  timezone: string;
}

/** A handful of zip centroids (radius searches start here). */
const ZIP_CENTROIDS: Record<string, ZipCentroid> = {
  '10001': { lat: 40.7506, lng: -73.9972, timezone: 'America/New_York' },
  '10003': { lat: 40.7317, lng: -73.9891, timezone: 'America/New_York' },
  '11201': { lat: 40.6937, lng: -73.9896, timezone: 'America/New_York' },
  '07302': { lat: 40.7217, lng: -74.0468, timezone: 'America/New_York' },
  '02108': { lat: 42.3576, lng: -71.0651, timezone: 'America/New_York' },
  '33131': { lat: 25.7664, lng: -80.1917, timezone: 'America/New_York' },
  '85004': { lat: 33.4515, lng: -112.0686, timezone: 'America/Phoenix' },
  '54650': { lat: 43.9089, lng: -91.2304, timezone: 'America/Chicago' },
};

/** At-home phlebotomy coverage (Junction sandbox): zip → local time zone. */
const PHLEBOTOMY_COVERAGE: Record<string, string> = {
  '85004': 'America/Phoenix',
  '54650': 'America/Chicago',
};

/**
 * The area a zip belongs to: its 5 digits. A ZIP+4 (`85004-1234`) is in its 5-digit zip's area,
 * which is what coverage and centroids know, and where at-home phlebotomy seats are counted.
 */
export const zipArea = (zip: string) => zip.slice(0, 5);

/** The centroid of a zip (5-digit or ZIP+4), if the sandbox knows it. */
export const zipCentroid = (zip: string): ZipCentroid | undefined => ZIP_CENTROIDS[zipArea(zip)];

/** The local time zone of at-home phlebotomy in a zip (5-digit or ZIP+4), or undefined: no coverage. */
export const phlebotomyCoverage = (zip: string): string | undefined => PHLEBOTOMY_COVERAGE[zipArea(zip)];

export interface PscSite {
  code: string;
  name: string;
  lat: number;
  lng: number;
  address: { first_line: string; city: string; state: string; zip_code: string };
  timezone: string;
}

export const PSC_SITES: PscSite[] = [
  {
    code: 'QSB-NYC-0001',
    name: 'Quest Diagnostics Sandbox - Chelsea',
    lat: 40.7484,
    lng: -73.9967,
    address: { first_line: '360 W 31st St', city: 'New York', state: 'NY', zip_code: '10001' },
    timezone: 'America/New_York',
  },
  {
    code: 'QSB-NYC-0002',
    name: 'Quest Diagnostics Sandbox - Union Square',
    lat: 40.7359,
    lng: -73.9911,
    address: { first_line: '20 E 14th St', city: 'New York', state: 'NY', zip_code: '10003' },
    timezone: 'America/New_York',
  },
  {
    code: 'QSB-NJ-0001',
    name: 'Quest Diagnostics Sandbox - Jersey City',
    lat: 40.7198,
    lng: -74.0431,
    address: { first_line: '100 Newark Ave', city: 'Jersey City', state: 'NJ', zip_code: '07302' },
    timezone: 'America/New_York',
  },
  {
    code: 'QSB-BOS-0001',
    name: 'Quest Diagnostics Sandbox - Beacon Hill',
    lat: 42.3588,
    lng: -71.0638,
    address: { first_line: '1 Beacon St', city: 'Boston', state: 'MA', zip_code: '02108' },
    timezone: 'America/New_York',
  },
];

/** Great-circle distance in miles. */
export function milesBetween(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 3958.8 * Math.asin(Math.sqrt(h));
}
