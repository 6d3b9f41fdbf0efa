/** @module storage/conditions Evaluates a WriteCondition against the stored article (RFC 9110 §13.1), one rule for every adapter. */
import type { WriteCondition } from './store.js';

/**
 * Whether a write may proceed, given the stored etag (undefined when the resource is absent).
 * Callers evaluate this inside the same transaction that holds the row, so it acts as compare-and-swap.
 */
export function conditionHolds(storedEtag: string | undefined, cond: WriteCondition | undefined): boolean {
  if (cond === undefined) return true;
  if (cond.ifMatch !== undefined) {
    // §13.1.1: If-Match fails when nothing is stored, or (for a list) when no listed etag is stored.
    if (storedEtag === undefined) return false;
    if (cond.ifMatch !== '*' && !cond.ifMatch.includes(storedEtag)) return false;
  }
  // §13.1.2: If-None-Match: * fails when anything is stored (create-only).
  if (cond.ifNoneMatch === '*' && storedEtag !== undefined) return false;
  return true;
}

/** OAuth scope lists are stored as one space-separated string; scope tokens never contain spaces (RFC 6749 §3.3). */
export function joinScopes(scopes: readonly string[]): string {
  return scopes.join(' ');
}

export function splitScopes(text: string): string[] {
  return text === '' ? [] : text.split(' ');
}
