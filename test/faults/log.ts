/**
 * The fault run's clock, log lines and checks. Times are printed from t = 0 (the moment every
 * simulation is asked for at once) once it is set, from the run's start before that.
 */
export const clock = { started: Date.now(), t0: 0 };

/** Seconds since t = 0. */
export const sinceT0 = () => (Date.now() - clock.t0) / 1000;
const stamp = () => (clock.t0 ? `+${sinceT0().toFixed(1)}s` : `${((Date.now() - clock.started) / 1000).toFixed(1)}s`);
export const log = (message: string) => console.log(`[faults ${stamp()}] ${message}`);
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What the run's checks found so far: the last line prints it, the exit code follows it. */
export const tally = { passed: 0, failed: 0 };

export function check(name: string, ok: boolean, detail = ''): boolean {
  if (ok) tally.passed += 1;
  else tally.failed += 1;
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? `: ${detail}` : ''}`);
  return ok;
}
