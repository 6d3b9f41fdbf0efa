/**
 * @module cli/commands/client-oauth2
 * The authorization code flow's options of `roa client add`: `--redirect-uri URI` (repeatable) and
 * `--public` (a client without a secret: native and browser apps, RFC 6749 §2.1, RFC 8252); and what
 * `roa client show` prints for an OAuth 2 client.
 */
import type { Command } from 'commander';
import { isPublicClient } from '../../auth/oauth-token.js';
import { redirectUriProblem } from '../../auth/redirect-uris.js';
import type { Store } from '../../storage/store.js';

/** What the flags ask for: the redirect URIs to register, and whether the client is public. */
export interface RedirectRegistration {
  publicClient: boolean;
  redirectUris: string[];
}

/** Adds the options to `roa client add`. */
export function oauth2AddOptions(add: Command): Command {
  return add
    .option('--redirect-uri <uri>', 'a redirect URI of the authorization code flow (repeat for more): https, http on 127.0.0.1/[::1]/localhost, or a private-use scheme such as com.example.app:/cb', (uri: string, all: string[] = []) => [...all, uri])
    .option('--public', 'a public client (native or browser app): no secret; authenticates with client_id alone; needs --redirect-uri');
}

/**
 * The registration the flags describe, checked: each redirect URI registrable, a public client with
 * at least one and no `--secret`. Throws an Error with a one-line message otherwise.
 * @example
 *   redirectRegistration({ public: true, redirectUri: ['http://127.0.0.1/cb'] }) // { publicClient: true, redirectUris: [...] }
 */
export function redirectRegistration(flags: Record<string, unknown>): RedirectRegistration {
  const redirectUris = Array.isArray(flags.redirectUri) ? (flags.redirectUri as string[]) : [];
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem !== undefined) throw new Error(`--redirect-uri '${uri}': ${problem}`);
  }
  const publicClient = flags.public === true;
  if (publicClient && typeof flags.secret === 'string') throw new Error('a --public client has no --secret');
  if (publicClient && redirectUris.length === 0) throw new Error('a --public client needs at least one --redirect-uri');
  return { publicClient, redirectUris: [...new Set(redirectUris)] };
}

/**
 * The lines `roa client show` prints for an OAuth 2 client, or undefined when there is none of that id:
 * `name: value`, one line per redirect URI as `roa client add` prints them.
 */
export async function showOAuth2Client(store: Store, clientId: string): Promise<string[] | undefined> {
  const c = await store.getClient(clientId);
  if (c === undefined) return undefined;
  return [
    `client_id: ${c.clientId}`,
    `type: ${isPublicClient(c) ? 'public' : 'confidential'}`,
    `user: ${c.userName}`,
    `scopes: ${c.scopes.join(' ')}`,
    ...(await store.oauth2.redirectUris(clientId)).map((uri) => `redirect_uri: ${uri}`),
    `created: ${c.createdAt.toISOString()}`,
  ];
}
