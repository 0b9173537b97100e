/**
 * A pass run every `intervalMs` in the background (the worker's reconcilers and starters): never
 * two at once — a tick while a pass runs is skipped — and the timer does not keep the process
 * alive. `stop` waits for a pass under way.
 */
export class PeriodicPass {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(private readonly pass: () => Promise<unknown>) {}

  /** Starts the timer (once; an interval of 0 or less leaves it off). */
  start(intervalMs: number): void {
    if (this.timer || intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.pass().finally(() => (this.running = null));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
