/**
 * @module auth/oauth1/limits
 * Bounds on what an OAuth 1 request may make the server parse and sort, each with a default.
 */

export interface OAuth1Limits {
  /** Longest `Authorization: OAuth …` value, in characters (default 8192) → 431. */
  headerLength: number;
  /** Most parameters (header, query and form body together) in the base string (default 1000, as the query parser) → 400. */
  parameters: number;
  /** Longest value of one protocol (`oauth_`) parameter after decoding (default 4096: room for an RSA-4096 signature or a long callback) → 400. */
  protocolValueLength: number;
}

export const DEFAULT_OAUTH1_LIMITS: Readonly<OAuth1Limits> = Object.freeze({
  headerLength: 8192,
  parameters: 1000,
  protocolValueLength: 4096,
});

// Limits already checked, so a scheme's per-request calls cost a lookup, not a copy and a loop.
const CHECKED = new WeakSet<object>([DEFAULT_OAUTH1_LIMITS]);

/**
 * The defaults with `overrides` applied; throws for a limit that is not a positive integer, so a
 * scheme built with one fails at construction.
 */
export function oauth1Limits(overrides: Partial<OAuth1Limits> = DEFAULT_OAUTH1_LIMITS): OAuth1Limits {
  if (CHECKED.has(overrides)) return overrides as OAuth1Limits;
  const limits = Object.freeze({ ...DEFAULT_OAUTH1_LIMITS, ...overrides });
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0) throw new Error(`OAuth 1 limit ${name} must be a positive integer`);
  }
  CHECKED.add(limits);
  return limits;
}
