/**
 * @module cli/chosen-password
 * Checks a password an operator typed (`roa user add|password --password`) instead of letting roa
 * generate one. Unlike a chosen HMAC or client secret (cli/chosen-secret), a short password is
 * refused outright: a password is what a browser or a person types at the Basic challenge and the
 * password grant, the throttle only slows online guessing, and NIST SP 800-63B §5.1.1.2 sets 8
 * characters as the floor for a memorised secret.
 */

/** The fewest characters (Unicode code points, as SP 800-63B counts them) a chosen password may have. */
export const MIN_PASSWORD_LENGTH = 8;

/** Throws with a message naming `flag` when `password` is empty, only whitespace, or too short. */
export function checkChosenPassword(flag: string, password: string): void {
  if (password.trim().length === 0) throw new Error(`${flag} must not be empty or only whitespace`);
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) {
    throw new Error(`${flag} must be at least ${MIN_PASSWORD_LENGTH} characters (got ${length}); omit it to have one generated`);
  }
}
