/**
 * @module auth/consent/sign-in
 * A user name and password typed into a sign-in page, checked as Basic checks them: the attempt is
 * counted by the same throttle under the same subject (`user:<name>`, per source address) before
 * scrypt runs, and an unknown user costs a scrypt run against a dummy hash like a known one.
 */
import { hash, randomBytes } from 'node:crypto';
import type { Store, User } from '../../storage/store.js';
import { dummyPasswordHash, verifyPassword } from '../passwords.js';
import type { AttemptThrottle } from '../throttle.js';
import { ThrottledChecks } from '../throttled-check.js';

export type SignInOutcome = { ok: true; user: User } | { ok: false; wait: number };

/**
 * @example
 *   const signIn = new PasswordSignIn({ store, throttle });
 *   const outcome = await signIn.check('alice', 'pw', sourceOf(req));
 *   if (outcome.ok) approve(outcome.user); else if (outcome.wait > 0) tooMany(outcome.wait);
 */
export class PasswordSignIn {
  private readonly store: Pick<Store, 'getUser'>;
  private readonly checks: ThrottledChecks;
  // Keys the fingerprints of checks in flight: no password is kept as a map key.
  private readonly fingerprintKey = randomBytes(32).toString('base64');

  constructor(options: { store: Pick<Store, 'getUser'>; throttle?: AttemptThrottle }) {
    this.store = options.store;
    this.checks = new ThrottledChecks(options.throttle);
  }

  /** `wait` > 0: throttled, nothing was checked (seconds to wait); `wait` 0: wrong name or password. */
  async check(username: string, password: string, source: string): Promise<SignInOutcome> {
    const subject = 'user:' + username;
    const user = await this.store.getUser(username);
    const stored = user?.passwordHash ?? (await dummyPasswordHash());
    const fingerprint = hash('sha256', [this.fingerprintKey, subject, source, password, stored].join('\0'), 'base64url');
    const outcome = await this.checks.run(subject, source, fingerprint, () => verifyPassword(password, stored));
    if (outcome.wait > 0) return { ok: false, wait: outcome.wait };
    if (!outcome.ok || user === undefined) return { ok: false, wait: 0 };
    return { ok: true, user };
  }
}
