/**
 * @module resources/policy
 * Who may do what: roles and scopes for the methods of a resource, and ownership of a record.
 */
import type { Caller } from '../auth/scheme.js';

export type Permission = 'allowed' | 'unauthenticated' | 'forbidden';

const RANK = { reader: 0, editor: 1, admin: 2 } as const;

/**
 * The default policy of roa resources: reading is public; writing needs `editor` (or `admin`)
 * and, for OAuth callers, the resource's write scope.
 */
export function rolePolicy(opts: { readScope: string; writeScope: string }) {
  return (method: string, caller: Caller | undefined): Permission => {
    const safe = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
    if (safe) {
      if (caller && caller.scopes !== null && !caller.scopes.includes(opts.readScope) && !caller.scopes.includes(opts.writeScope)) {
        return 'forbidden';
      }
      return 'allowed';
    }
    if (caller === undefined) return 'unauthenticated';
    if (RANK[caller.role] < RANK.editor) return 'forbidden';
    if (caller.scopes !== null && !caller.scopes.includes(opts.writeScope)) return 'forbidden';
    return 'allowed';
  };
}

/** Replacing or deleting another user's record needs `admin`. */
export function mayModify(caller: Caller | undefined, owner: string): boolean {
  if (caller === undefined) return false;
  return caller.role === 'admin' || caller.name === owner;
}
