import type { TeamBrand } from '../tenancy/team-settings.repository';

/** What a portal page needs of the team's brand settings (management API: logo_url, brand_information). */
export interface PortalBrand {
  name: string;
  logoUrl: string | null;
  /** #RRGGBB, dark enough for white text on it and for links on the page (WCAG AA, 4.5:1). */
  color: string;
  supportEmail: string | null;
  supportPhone: string | null;
  supportUrl: string | null;
}

const DEFAULT_COLOR = '#1f5fbf';
const HEX = /^#[0-9A-Fa-f]{6}$/;

/** labflow's own look, for pages no team owns (an unknown link). */
export const NEUTRAL_BRAND: PortalBrand = {
  name: 'Patient portal',
  logoUrl: null,
  color: DEFAULT_COLOR,
  supportEmail: null,
  supportPhone: null,
  supportUrl: null,
};

export function portalBrand(team: TeamBrand | null): PortalBrand {
  if (!team) return NEUTRAL_BRAND;
  const info = team.brandInformation ?? null;
  const text = (key: string) => (typeof info?.[key] === 'string' && info[key] ? (info[key] as string) : null);
  const color = text('primary_color');
  const logo = team.logoUrl && /^https?:\/\//.test(team.logoUrl) ? team.logoUrl : null;
  const supportUrl = text('support_url');
  return {
    name: text('company_name') ?? team.name,
    logoUrl: logo,
    color: readableOnWhite(color && HEX.test(color) ? color : DEFAULT_COLOR),
    supportEmail: text('support_email'),
    supportPhone: text('support_phone'),
    supportUrl: supportUrl && /^https?:\/\//.test(supportUrl) ? supportUrl : null,
  };
}

/**
 * The colour, darkened step by step until white on it reaches 5:1: that keeps it above WCAG AA's
 * 4.5:1 as text on white and on the page's light grey background too.
 */
export function readableOnWhite(hex: string): string {
  let [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  while (contrastWithWhite(r, g, b) < 5) {
    [r, g, b] = [r, g, b].map((c) => Math.floor(c * 0.9));
  }
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

function contrastWithWhite(r: number, g: number, b: number): number {
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  return 1.05 / (luminance + 0.05);
}

/** The origin of the logo, for the page's Content-Security-Policy img-src. */
export function logoOrigin(brand: PortalBrand): string | null {
  if (!brand.logoUrl) return null;
  try {
    return new URL(brand.logoUrl).origin;
  } catch {
    return null;
  }
}
