/**
 * How many of a worker's sends one target (a webhook endpoint, a RabbitMQ pipeline) may hold, so
 * that a target which does not answer cannot starve every other target of the process — another
 * team's endpoints included.
 *
 * Why: an attempt holds its send slot until the target answers or the delivery timeout ends. A
 * broker that stops confirming, or an endpoint that hangs, used to fill all WEBHOOK_CONCURRENCY
 * slots within milliseconds and keep them for the whole timeout (15 s), again and again as its
 * retries came back: every other delivery of the worker waited behind it (500 webhooks to a
 * healthy receiver took over two minutes beside one hanging RabbitMQ pipeline).
 *
 * - A target holds at most half the slots (`perTarget`): the other half stays for everyone else.
 *   One target alone still has many sends in flight; its further attempts wait for one of its
 *   own slots, not for the other targets'.
 * - A target with all its slots taken and no send finished for STALLED_MS is stalled: another
 *   attempt to it is not sent (rather than wait, holding the worker's attempt slot, for a target
 *   that is not answering anybody).
 * - A target whose last attempt got no answer (timeout, refused, broker error) is *unanswering*:
 *   it keeps one send in flight at a time.
 * An attempt not sent gives back its slots at once and is retried on the delivery's schedule like
 * any failed attempt. A target's first answer makes it answering again.
 *
 * Per process and in memory: each worker judges from its own attempts, which is enough to keep
 * its own slots free, and nothing is lost with a restart (a new process learns again).
 */
/**
 * No send of a target with all its slots taken finished for this long: it is not answering. Far
 * above a working receiver's time for a request (milliseconds), below the delivery timeout (15 s)
 * that a hanging target would otherwise hold every slot for.
 */
export const STALLED_MS = 5_000;

/** What an attempt learnt of its target: it answered (any HTTP status, a publisher confirm), it did not, or it was not contacted. */
export type SendOutcome = 'answered' | 'unanswered' | 'not_sent';

interface Waiter {
  since: number;
  take: () => void;
  timer: NodeJS.Timeout;
}

interface Target {
  /** Sends in flight. */
  sending: number;
  waiting: Waiter[];
  unanswering: boolean;
  /** When a send of the target last finished (or the target was first seen). */
  lastFinished: number;
}

export class TargetSends {
  private readonly perTarget: number;
  private readonly targets = new Map<string, Target>();

  constructor(concurrency: number) {
    this.perTarget = Math.max(1, Math.floor(concurrency / 2));
  }

  /**
   * Takes one of the target's slots, waiting while they are all taken: why not (send nothing)
   * when the target is unanswering and already has a send in flight, or stalls while this one
   * waits; otherwise the function that gives the slot back with what the attempt learnt of the
   * target (`not_sent`: nothing, it was not contacted).
   */
  async acquire(key: string): Promise<((outcome: SendOutcome) => void) | { refused: string }> {
    const target = this.targetOf(key);
    if (target.unanswering && target.sending + target.waiting.length > 0) {
      return { refused: 'Not sent: the last attempt to this target got no answer and another attempt to it is in flight' };
    }
    const stalledFor = performance.now() - target.lastFinished;
    if (target.sending >= this.perTarget && stalledFor >= STALLED_MS) {
      return { refused: `Not sent: ${target.sending} attempts to this target are in flight and none has finished for ${Math.floor(stalledFor / 1000)} s` };
    }
    if (target.sending >= this.perTarget) {
      const taken = await this.waitForSlot(target);
      if (!taken) return { refused: `Not sent: ${target.sending} attempts to this target were in flight and none finished for ${STALLED_MS / 1000} s` };
    } else {
      target.sending++;
    }
    let released = false;
    return (outcome: SendOutcome) => {
      if (released) return;
      released = true;
      if (outcome !== 'not_sent') target.unanswering = outcome === 'unanswered';
      target.lastFinished = performance.now();
      const next = target.waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        next.take();
        return;
      }
      target.sending--;
      // An answering target with nothing in flight need not be remembered.
      if (target.sending === 0 && !target.unanswering && this.targets.get(key) === target) this.targets.delete(key);
    };
  }

  private targetOf(key: string): Target {
    let target = this.targets.get(key);
    if (!target) {
      target = { sending: 0, waiting: [], unanswering: false, lastFinished: performance.now() };
      this.targets.set(key, target);
    }
    return target;
  }

  /** True once a send of the target hands its slot over; false when none finishes for STALLED_MS while this one waits. */
  private waitForSlot(target: Target): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        since: performance.now(),
        take: () => resolve(true),
        timer: setTimeout(function check() {
          if (target.lastFinished < waiter.since || performance.now() - target.lastFinished >= STALLED_MS) {
            target.waiting.splice(target.waiting.indexOf(waiter), 1);
            resolve(false);
            return;
          }
          waiter.timer = setTimeout(check, STALLED_MS - (performance.now() - target.lastFinished));
        }, STALLED_MS),
      };
      target.waiting.push(waiter);
    });
  }
}
