import { SUMMARY_TYPES, TIMESERIES_RESOURCES } from './registry';

/** The SDK's `SourceType` values; `device` and `lab` have no provider in labflow yet. */
export const PROVIDER_SOURCE_TYPES = ['app', 'ble', 'device', 'lab', 'provider'] as const;
export type ProviderSourceType = (typeof PROVIDER_SOURCE_TYPES)[number];

/**
 * The data sources labflow knows (`GET /v2/providers`): the demo sources Junction's sandbox
 * offers, the phone SDK sources and `manual` (the default provider of ingestion). A provider
 * slug not listed here is still stored as sent; its source then shows the slug as name.
 */
export interface ProviderInfo {
  slug: string;
  name: string;
  description: string;
  authType: 'oauth' | 'sdk' | 'password' | 'email' | 'app' | '';
  /**
   * How the data reaches labflow (`GET /v2/providers?source_type=`; the SDK's `SourceType`):
   * `provider` from the source's cloud, `app` from the phone SDK or the team's own app.
   */
  sourceType: ProviderSourceType;
  /** Numeric source id, as Junction's raw objects and timeseries events carry it (stable per slug). */
  sourceId: number;
}

const LOGO_BASE = 'https://storage.googleapis.com/vital-assets';

export const PROVIDERS: readonly ProviderInfo[] = [
  { slug: 'oura', name: 'Oura', description: 'Smart ring tracking sleep, activity and readiness.', authType: 'oauth', sourceType: 'provider', sourceId: 1 },
  { slug: 'fitbit', name: 'Fitbit', description: 'Wearables tracking activity, heart rate and sleep.', authType: 'oauth', sourceType: 'provider', sourceId: 2 },
  { slug: 'garmin', name: 'Garmin', description: 'Watches and fitness devices.', authType: 'oauth', sourceType: 'provider', sourceId: 3 },
  {
    slug: 'withings',
    name: 'Withings',
    description: 'Smart scales, blood pressure monitors and watches.',
    authType: 'oauth',
    sourceType: 'provider',
    sourceId: 4,
  },
  {
    slug: 'freestyle_libre',
    name: 'Freestyle Libre',
    description: 'Continuous glucose monitor, shared through a LibreView invitation by e-mail.',
    authType: 'email',
    sourceType: 'provider',
    sourceId: 5,
  },
  {
    slug: 'apple_health_kit',
    name: 'Apple HealthKit',
    description: 'Health data from iPhone and Apple Watch.',
    authType: 'sdk',
    sourceType: 'app',
    sourceId: 6,
  },
  { slug: 'health_connect', name: 'Health Connect', description: 'Health data from Android devices.', authType: 'sdk', sourceType: 'app', sourceId: 7 },
  {
    slug: 'samsung_health',
    name: 'Samsung Health',
    description: "Health data from Samsung phones and Galaxy watches, read by the Android SDK's Samsung Health module.",
    authType: 'sdk',
    sourceType: 'app',
    sourceId: 19,
  },
  { slug: 'manual', name: 'Manual', description: 'Data sent to labflow directly by the team or its app.', authType: '', sourceType: 'app', sourceId: 8 },
  {
    slug: 'abbott_libreview',
    name: 'Abbott LibreView',
    description: 'Continuous glucose monitor data from a LibreView account.',
    authType: 'password',
    sourceType: 'provider',
    sourceId: 9,
  },
  {
    slug: 'beurer_ble',
    name: 'Beurer (Bluetooth)',
    description: 'Beurer scales and blood pressure monitors, read over Bluetooth by the phone SDK.',
    authType: 'sdk',
    sourceType: 'ble',
    sourceId: 11,
  },
  {
    slug: 'omron_ble',
    name: 'Omron (Bluetooth)',
    description: 'Omron blood pressure monitors, read over Bluetooth by the phone SDK.',
    authType: 'sdk',
    sourceType: 'ble',
    sourceId: 12,
  },
  {
    slug: 'accuchek_ble',
    name: 'Accu-Chek (Bluetooth)',
    description: 'Accu-Chek glucose meters, read over Bluetooth by the phone SDK.',
    authType: 'sdk',
    sourceType: 'ble',
    sourceId: 13,
  },
  {
    slug: 'contour_ble',
    name: 'Contour (Bluetooth)',
    description: 'Contour glucose meters, read over Bluetooth by the phone SDK.',
    authType: 'sdk',
    sourceType: 'ble',
    sourceId: 14,
  },
  {
    slug: 'freestyle_libre_ble',
    name: 'Freestyle Libre (Bluetooth)',
    description: 'Freestyle Libre sensors, read by the phone SDK.',
    authType: 'sdk',
    sourceType: 'ble',
    sourceId: 15,
  },
  {
    slug: 'onetouch_ble',
    name: 'OneTouch (Bluetooth)',
    description: 'OneTouch glucose meters, read over Bluetooth by the phone SDK.',
    authType: 'sdk',
    sourceType: 'ble',
    sourceId: 16,
  },
  {
    slug: 'dexcom',
    name: 'Dexcom',
    description: 'Continuous glucose monitor data from a Dexcom account.',
    authType: 'password',
    sourceType: 'provider',
    sourceId: 10,
  },
  {
    slug: 'dexcom_v3',
    name: 'Dexcom',
    description: 'Continuous glucose monitor data from a Dexcom account (Dexcom API v3, OAuth).',
    authType: 'oauth',
    sourceType: 'provider',
    sourceId: 17,
  },
  {
    slug: 'whoop_v2',
    name: 'WHOOP',
    description: 'Strap tracking sleep, recovery, strain and workouts (WHOOP API v2, OAuth).',
    authType: 'oauth',
    sourceType: 'provider',
    sourceId: 18,
  },
];

const BY_SLUG = new Map(PROVIDERS.map((provider) => [provider.slug, provider]));

/** What labflow knows of a provider slug, or undefined for one it does not list. */
export function providerInfo(slug: string): ProviderInfo | undefined {
  return BY_SLUG.get(slug);
}

/** The `source` object of a provider slug: `{provider, name, slug, logo}` (+ source type when known). */
export function sourceOf(slug: string, sourceType?: string | null) {
  const provider = BY_SLUG.get(slug);
  return {
    provider: slug,
    ...(sourceType ? { type: sourceType } : {}),
    name: provider?.name ?? slug,
    slug,
    logo: logoOf(slug),
  };
}

/** `{name, slug, logo}` as raw objects and events carry it. */
export function providerOf(slug: string) {
  return { name: BY_SLUG.get(slug)?.name ?? slug, slug, logo: logoOf(slug) };
}

export function sourceIdOf(slug: string): number {
  return BY_SLUG.get(slug)?.sourceId ?? 0;
}

export function logoOf(slug: string): string {
  return `${LOGO_BASE}/${slug}.png`;
}

/** Every resource a provider can deliver through labflow: all registry resources (ingestion takes any). */
export const SUPPORTED_RESOURCES: readonly string[] = [
  ...SUMMARY_TYPES.map((type) => (type.slug === 'devices' ? 'device' : type.slug)),
  ...TIMESERIES_RESOURCES.map((resource) => resource.event),
];

/**
 * An empty object keyed by provider slugs (or resource slugs under them), without a prototype:
 * a slug is anything matching [a-z0-9_], `__proto__` and `constructor` included, and must stay a
 * plain key. Still an object, so JSON.stringify orders its keys as for any object.
 */
export function bySlug<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
