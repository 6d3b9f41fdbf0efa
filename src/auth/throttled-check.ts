/**
 * @module auth/throttled-check
 * One credential check under the failed-login throttle: the attempt is counted before the check, and
 * identical attempts in flight (same credential, same guess, same source) share one count and one
 * check, so a client opening many connections at once is not throttled by its own right password.
 */
import type { AttemptThrottle } from './throttle.js';

/** The outcome of a check: `wait` > 0 means throttled (nothing was checked). */
export type CheckOutcome = { ok: boolean; wait: 0 } | { ok: false; wait: number };

/**
 * @example
 *   const checks = new ThrottledChecks(throttle);
 *   const { ok, wait } = await checks.run('user:ann', req.socket.remoteAddress, fingerprint, () => verifyPassword(pw, hash));
 */
export class ThrottledChecks {
  private readonly inFlight = new Map<string, Promise<CheckOutcome>>();

  constructor(private readonly throttle: AttemptThrottle | undefined) {}

  /**
   * Runs `check` unless the throttle refuses the attempt. `fingerprint` must identify the subject,
   * the source and the guess (a keyed digest: no password is kept as a map key).
   */
  run(subject: string, source: string, fingerprint: string, check: () => Promise<boolean>): Promise<CheckOutcome> {
    const joined = this.inFlight.get(fingerprint);
    if (joined !== undefined) return joined;
    const outcome = this.checkOnce(subject, source, check);
    this.inFlight.set(fingerprint, outcome);
    const forget = (): void => {
      this.inFlight.delete(fingerprint);
    };
    outcome.then(forget, forget);
    return outcome;
  }

  private async checkOnce(subject: string, source: string, check: () => Promise<boolean>): Promise<CheckOutcome> {
    const throttle = this.throttle;
    if (throttle !== undefined) {
      const wait = await throttle.attempt(subject, source);
      if (wait > 0) return { ok: false, wait };
    }
    const ok = await check();
    if (ok) await throttle?.succeeded(subject, source);
    return { ok, wait: 0 };
  }
}
