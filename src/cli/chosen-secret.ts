/**
 * @module cli/chosen-secret
 * Checks a secret an operator typed (`--secret`, `--hmac-secret`) instead of letting roa generate one.
 * An empty one is refused. A short one is accepted with a warning on stderr: it is the operator's
 * call (a test fixture, a secret shared with an existing client), but it can be guessed offline from
 * one signed request or token request, so the operator should know. Generated secrets have 256 bits.
 */

/** Below this many characters a chosen secret draws a warning. */
export const SHORT_SECRET = 16;

export function checkChosenSecret(flag: string, secret: string, warn: (line: string) => void = (line) => console.error(line)): void {
  if (secret.length === 0) throw new Error(`${flag} must not be empty`);
  if (secret.length < SHORT_SECRET) {
    warn(`roa: warning: ${flag} is shorter than ${SHORT_SECRET} characters and can be guessed; omit it to have a 256-bit one generated`);
  }
}
