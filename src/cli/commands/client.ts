/**
 * @module cli/commands/client
 * `roa client add|list|show|remove|revoke`: the OAuth 2.0 and OAuth 1.0a clients.
 */
import type { Command } from 'commander';
import { ARTICLE_SCOPE_LIST as SCOPES } from '../../resources/article/article-scopes.js';
import { hashPassword } from '../../auth/passwords.js';
import { generateClientSecret } from '../../auth/tokens.js';
import { SERVE_OPTIONS } from '../options.js';
import { checkChosenSecret } from '../chosen-secret.js';
import { withStore } from './with-store.js';
import { addOAuth1Consumer, listOAuth1Consumers, oauth1AddOptions, refuseOAuth1Flags, registerClientRevoke, showOAuth1Consumer } from './client-oauth1.js';
import { oauth2AddOptions, redirectRegistration, showOAuth2Client } from './client-oauth2.js';

const CLIENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;

export function registerClient(program: Command): void {
  const client = program.command('client').description('manage OAuth 2.0 and OAuth 1.0a clients');
  const add = client
    .command('add <client_id>')
    .description('register a client for a user; prints a generated secret once')
    .option('--user <name>', 'the user this client acts for (client_credentials grant; required but for --oauth1)')
    .option('--secret <secret>', 'client secret (generated when omitted)')
    .option('--scopes <scopes>', `space- or comma-separated scopes (default: ${SCOPES.join(' ')})`)
    .option(SERVE_OPTIONS.db.flag, 'database (env DATABASE_URL, default ./data/roa.db)')
    .option(SERVE_OPTIONS.schema.flag, 'PostgreSQL schema (env ROA_PG_SCHEMA)');
  oauth1AddOptions(oauth2AddOptions(add))
    .action(async (clientId: string, flags: Record<string, unknown>) => {
      if (!CLIENT_ID.test(clientId)) throw new Error('a client_id is 1-128 characters of letters, digits, ".", "_", "~" or "-"');
      if (flags.oauth1 === true) return addOAuth1Consumer(clientId, flags);
      refuseOAuth1Flags(flags);
      if (typeof flags.user !== 'string') throw new Error("required option '--user <name>' not specified");
      const scopes = typeof flags.scopes === 'string' ? flags.scopes.split(/[\s,]+/).filter(Boolean) : [...SCOPES];
      if (scopes.length === 0) throw new Error(`--scopes needs at least one scope of ${SCOPES.join(', ')}`);
      const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (unknown.length > 0) throw new Error(`unknown scope ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
      const { publicClient, redirectUris } = redirectRegistration(flags);
      const given = typeof flags.secret === 'string' ? flags.secret : undefined;
      if (given !== undefined) checkChosenSecret('--secret', given);
      // A generated secret has 256 random bits: a fast hash cannot be brute-forced. A chosen one may
      // be guessable like a password, so it is stored like one (scrypt).
      const { clientSecret, secretHash } = given === undefined ? generateClientSecret() : { clientSecret: given, secretHash: await hashPassword(given) };
      await withStore(flags, async (store) => {
        if (!(await store.getUser(flags.user as string))) throw new Error(`no user named '${String(flags.user)}'`);
        if (await store.oauth1.getConsumer(clientId)) throw new Error(`an OAuth 1 client named '${clientId}' exists`);
        const registration = { clientId, secretHash: publicClient ? '' : secretHash, userName: flags.user as string, scopes };
        // With redirect URIs, the client and its URIs are one step (store.oauth2).
        if (redirectUris.length > 0) await store.oauth2.createClient({ ...registration, redirectUris });
        else await store.createClient(registration);
      });
      console.log(`added ${publicClient ? 'public ' : ''}client ${clientId} for ${String(flags.user)} (${scopes.join(' ')})`);
      for (const uri of redirectUris) console.log(`redirect_uri: ${uri}`);
      if (given === undefined && !publicClient) console.log(`client_secret: ${clientSecret}`);
    });
  client
    .command('list')
    .description('list clients')
    .option(SERVE_OPTIONS.db.flag, 'database')
    .option(SERVE_OPTIONS.schema.flag, 'PostgreSQL schema (env ROA_PG_SCHEMA)')
    .action(async (flags: Record<string, unknown>) => {
      await withStore(flags, async (store) => {
        for (const c of await store.listClients()) console.log(`${c.clientId}\t${c.userName}\t${c.scopes.join(' ')}`);
        for (const line of await listOAuth1Consumers(store)) console.log(line);
      });
    });
  client
    .command('show <client_id>')
    .description("one client's registration: type (confidential, public, oauth1), user, scopes, redirect URIs or callbacks")
    .option(SERVE_OPTIONS.db.flag, 'database')
    .option(SERVE_OPTIONS.schema.flag, 'PostgreSQL schema (env ROA_PG_SCHEMA)')
    .action(async (clientId: string, flags: Record<string, unknown>) => {
      const lines = await withStore(flags, async (store) => (await showOAuth2Client(store, clientId)) ?? showOAuth1Consumer(store, clientId));
      if (lines === undefined) throw new Error(`no client '${clientId}'`);
      for (const line of lines) console.log(line);
    });
  client
    .command('remove <client_id>')
    .description('remove a client (and its tokens)')
    .option(SERVE_OPTIONS.db.flag, 'database')
    .option(SERVE_OPTIONS.schema.flag, 'PostgreSQL schema (env ROA_PG_SCHEMA)')
    .action(async (clientId: string, flags: Record<string, unknown>) => {
      const removed = await withStore(flags, async (store) => (await store.removeClient(clientId)) || store.oauth1.removeConsumer(clientId));
      if (!removed) throw new Error(`no client '${clientId}'`);
      console.log(`removed client ${clientId}`);
    });
  registerClientRevoke(client);
}
