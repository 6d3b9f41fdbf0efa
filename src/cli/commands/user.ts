/**
 * @module cli/commands/user
 * `roa user add|list|remove`: manage the users who may write.
 */
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { hashPassword } from '../../auth/passwords.js';
import { generateHmacSecret, loadServerKey, SecretBox, sealHmacSecret } from '../../auth/secret-box.js';
import type { Role } from '../../storage/store.js';
import { SERVE_OPTIONS, resolveOption } from '../options.js';
import { checkChosenPassword } from '../chosen-password.js';
import { checkChosenSecret } from '../chosen-secret.js';
import { withStore } from './with-store.js';

const ROLES: readonly Role[] = ['reader', 'editor', 'admin'];
const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** A password for a user who was given none: 144 random bits, printed once. */
function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/** Seals an HMAC secret under the server key (ROA_SECRET_KEY or the key file), as `roa serve` reads it. */
function sealer(keyFile: unknown): (name: string, secret: string) => string {
  const box = new SecretBox(loadServerKey({ keyFile: resolveOption(SERVE_OPTIONS.secretKeyFile, keyFile) }).key);
  return (name, secret) => sealHmacSecret(box, name, secret);
}

export function registerUser(program: Command): void {
  const user = program.command('user').description('manage users (reader, editor, admin)');
  const add = user
    .command('add <name>')
    .description('add a user; prints a generated password when none is given')
    .requiredOption('--role <role>', 'reader, editor or admin')
    .option('--password <password>', 'password (generated when omitted)')
    .option('--hmac-secret [secret]', 'give the user an HMAC secret (generated and printed once when no value)')
    .option(SERVE_OPTIONS.secretKeyFile.flag, 'server key file sealing HMAC secrets (or env ROA_SECRET_KEY)')
    .option(SERVE_OPTIONS.db.flag, 'database (env DATABASE_URL, default ./data/roa.db)')
    .option(SERVE_OPTIONS.schema.flag, 'PostgreSQL schema (env ROA_PG_SCHEMA)');
  add.action(async (name: string, flags: Record<string, unknown>) => {
    if (!NAME.test(name)) throw new Error('a user name is 1-64 characters of letters, digits, ".", "_" or "-"');
    const role = flags.role as Role;
    if (!ROLES.includes(role)) throw new Error(`--role must be one of ${ROLES.join(', ')}, got '${String(role)}'`);
    const given = typeof flags.password === 'string' ? flags.password : undefined;
    if (given !== undefined) checkChosenPassword('--password', given);
    const password = given ?? generatePassword();
    const hmac = flags.hmacSecret === undefined ? undefined : flags.hmacSecret === true ? generateHmacSecret() : String(flags.hmacSecret);
    if (typeof flags.hmacSecret === 'string') checkChosenSecret('--hmac-secret', flags.hmacSecret);
    const hmacSecret = hmac === undefined ? null : sealer(flags.secretKeyFile)(name, hmac);
    await withStore(flags, async (store) => {
      await store.createUser({ name, role, passwordHash: await hashPassword(password), hmacSecret });
    });
    console.log(`added ${role} ${name}`);
    if (given === undefined) console.log(`password: ${password}`);
    if (flags.hmacSecret === true) console.log(`hmac secret: ${hmac}`);
  });

  user
    .command('hmac <name>')
    .description('set (or generate and print once) a user\'s HMAC secret')
    .option('--secret <secret>', 'the secret (generated when omitted)')
    .option(SERVE_OPTIONS.secretKeyFile.flag, 'server key file (or env ROA_SECRET_KEY)')
    .option(SERVE_OPTIONS.db.flag, 'database')
    .option(SERVE_OPTIONS.schema.flag, 'PostgreSQL schema (env ROA_PG_SCHEMA)')
    .action(async (name: string, flags: Record<string, unknown>) => {
      const secret = typeof flags.secret === 'string' ? flags.secret : generateHmacSecret();
      if (typeof flags.secret === 'string') checkChosenSecret('--secret', flags.secret);
      const sealed = sealer(flags.secretKeyFile)(name, secret);
      if (!(await withStore(flags, (store) => store.setUserHmacSecret(name, sealed)))) throw new Error(`no user named '${name}'`);
      console.log(`hmac secret set for ${name}`);
      if (typeof flags.secret !== 'string') console.log(`hmac secret: ${secret}`);
    });

  user
    .command('password <name>')
    .description("set a user's password; prints a generated one once when none is given")
    .option('--password <password>', 'the new password (generated when omitted)')
    .option(SERVE_OPTIONS.db.flag, 'database')
    .option(SERVE_OPTIONS.schema.flag, 'PostgreSQL schema (env ROA_PG_SCHEMA)')
    .action(async (name: string, flags: Record<string, unknown>) => {
      const given = typeof flags.password === 'string' ? flags.password : undefined;
      if (given !== undefined) checkChosenPassword('--password', given);
      const password = given ?? generatePassword();
      const hash = await hashPassword(password);
      // A new password ends the grants made with the old one: every OAuth token issued for the user.
      const revoked = await withStore(flags, async (store) => ((await store.setUserPassword(name, hash)) ? store.revokeUserTokens(name) : undefined));
      if (revoked === undefined) throw new Error(`no user named '${name}'`);
      console.log(`password set for ${name}; ${revoked} OAuth token${revoked === 1 ? '' : 's'} revoked`);
      if (given === undefined) console.log(`password: ${password}`);
    });

  user
    .command('role <name> <role>')
    .description("change a user's role (reader, editor or admin)")
    .option(SERVE_OPTIONS.db.flag, 'database')
    .option(SERVE_OPTIONS.schema.flag, 'PostgreSQL schema (env ROA_PG_SCHEMA)')
    .action(async (name: string, role: string, flags: Record<string, unknown>) => {
      if (!ROLES.includes(role as Role)) throw new Error(`role must be one of ${ROLES.join(', ')}, got '${role}'`);
      if (!(await withStore(flags, (store) => store.setUserRole(name, role as Role)))) throw new Error(`no user named '${name}'`);
      console.log(`${name} is now ${role}`);
    });

  user
    .command('list')
    .description('list users')
    .option(SERVE_OPTIONS.db.flag, 'database')
    .option(SERVE_OPTIONS.schema.flag, 'PostgreSQL schema (env ROA_PG_SCHEMA)')
    .action(async (flags: Record<string, unknown>) => {
      await withStore(flags, async (store) => {
        for (const u of await store.listUsers()) {
          console.log(`${u.name}\t${u.role}\t${u.hmacSecret ? 'hmac' : '-'}\t${u.createdAt.toISOString()}`);
        }
      });
    });

  user
    .command('remove <name>')
    .description('remove a user')
    .option(SERVE_OPTIONS.db.flag, 'database')
    .option(SERVE_OPTIONS.schema.flag, 'PostgreSQL schema (env ROA_PG_SCHEMA)')
    .action(async (name: string, flags: Record<string, unknown>) => {
      const removed = await withStore(flags, (store) => store.removeUser(name));
      if (!removed) throw new Error(`no user named '${name}'`);
      console.log(`removed ${name}`);
    });
}
