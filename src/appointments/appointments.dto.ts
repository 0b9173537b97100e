import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { isoDate } from '../common/schemas';

const zipCode = z.string().regex(/^\d{5}$/, { message: 'zip_code must be a 5-digit US zip code' });
const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

/** The US address of an at-home draw (Junction UsAddress, plus access_notes). */
export class PhlebotomyAvailabilityBody extends createZodDto(
  z.object({
    first_line: z.string().trim().min(1).max(255),
    second_line: z.string().trim().max(255).optional(),
    city: z.string().trim().min(1).max(100),
    state: z.string().trim().regex(/^[A-Za-z]{2}$/, { message: 'state must be a 2-letter US state code' }),
    zip_code: zipCode,
    unit: z.string().trim().max(50).optional(),
    access_notes: z.string().max(1000).optional(),
  }),
) {}

export class PhlebotomyAvailabilityQuery extends createZodDto(
  z.object({
    start_date: isoDate.optional(),
    allow_stale: queryBoolean.optional(),
  }),
) {}

export const PSC_RADII = ['10', '20', '25', '50', '100'] as const;

export class PscAvailabilityQuery extends createZodDto(
  z
    .object({
      lab: z.enum(['quest']),
      start_date: isoDate.optional(),
      zip_code: zipCode.optional(),
      radius: z.enum(PSC_RADII).default('20'),
      /** Repeated (?site_codes=a&site_codes=b) or comma-separated. */
      site_codes: z
        .union([z.string(), z.array(z.string())])
        .transform((value) =>
          (Array.isArray(value) ? value : [value])
            .flatMap((item) => item.split(','))
            .map((item) => item.trim())
            .filter(Boolean),
        )
        .pipe(z.array(z.string().max(64)).max(50))
        .optional(),
      allow_stale: queryBoolean.optional(),
    })
    .refine((query) => query.zip_code !== undefined || (query.site_codes?.length ?? 0) > 0, {
      message: 'Give zip_code or site_codes.',
      path: ['zip_code'],
    }),
) {}
