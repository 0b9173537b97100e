import { addDays, dateToUtcMs, formatInZone, wallToUtc } from '../zoned-time';
import type { ProviderSlot } from './appointment-provider';

export interface SlotGrid {
  timezone: string;
  /** Local opening, inclusive, and closing, exclusive of slot starts ([hour, minute]). */
  open: [number, number];
  close: [number, number];
  everyMinutes: number;
  durationMinutes: number;
  /** Weekdays (0 = Sunday) with no slots. */
  closedOn: number[];
  slot: (localMinutes: number, date: string) => Pick<ProviderSlot, 'price' | 'is_priority' | 'num_appointments_available'>;
}

/**
 * The 14 (or `days`) calendar days from startDate, each with the grid's slots computed from the
 * local wall clock, so a DST change in the window keeps local hours and moves the UTC offset.
 * Slots that already started (before nowMs) are left out; the day itself stays.
 */
export function sandboxDays(grid: SlotGrid, startDate: string, days: number, nowMs: number): Array<{ date: string; slots: ProviderSlot[] }> {
  const result: Array<{ date: string; slots: ProviderSlot[] }> = [];
  const from = grid.open[0] * 60 + grid.open[1];
  const to = grid.close[0] * 60 + grid.close[1];
  const durationMs = grid.durationMinutes * 60_000;
  for (let i = 0; i < days; i += 1) {
    const date = addDays(startDate, i);
    const slots: ProviderSlot[] = [];
    // The day's midnight on the wall clock, written as if it were UTC.
    const midnight = dateToUtcMs(date);
    if (!grid.closedOn.includes(new Date(midnight).getUTCDay())) {
      for (let minutes = from; minutes < to; minutes += grid.everyMinutes) {
        const start = wallToUtc(midnight + minutes * 60_000, grid.timezone);
        if (start <= nowMs) continue;
        slots.push({
          start: formatInZone(start, grid.timezone),
          end: formatInZone(start + durationMs, grid.timezone),
          ...grid.slot(minutes, date),
        });
      }
    }
    result.push({ date, slots });
  }
  return result;
}
