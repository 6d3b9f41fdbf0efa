/**
 * @module cli/commands/user
 * `roa user add|list|remove`: manage the users who may write.
 */
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { hashPassword } from '../../auth/passwords.js';
import { openStore } from '../../storage/open-store.js';
import type { Role, Store } from '../../storage/store.js';
import { SERVE_OPTIONS, resolveOption } from '../options.js';

const ROLES: readonly Role[] = ['reader', 'editor', 'admin'];
const NAME = /^[A-Za-z0-9._-]{1,64}$/;

async function withStore<T>(db: unknown, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(resolveOption(SERVE_OPTIONS.db, db)!);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

export function registerUser(program: Command, extend?: (add: Command) => void): void {
  const user = program.command('user').description('manage users (reader, editor, admin)');
  const add = user
    .command('add <name>')
    .description('add a user; prints a generated password when none is given')
    .requiredOption('--role <role>', 'reader, editor or admin')
    .option('--password <password>', 'password (generated when omitted)')
    .option(SERVE_OPTIONS.db.flag, 'database (env DATABASE_URL, default ./data/roa.db)');
  extend?.(add);
  add.action(async (name: string, flags: Record<string, unknown>) => {
    if (!NAME.test(name)) throw new Error('a user name is 1-64 characters of letters, digits, ".", "_" or "-"');
    const role = flags.role as Role;
    if (!ROLES.includes(role)) throw new Error(`--role must be one of ${ROLES.join(', ')}, got '${String(role)}'`);
    const given = typeof flags.password === 'string' ? flags.password : undefined;
    const password = given ?? randomBytes(18).toString('base64url');
    await withStore(flags.db, async (store) => {
      await store.createUser({ name, role, passwordHash: await hashPassword(password) });
      const hooks = (flags.__afterCreate as ((s: Store) => Promise<void>) | undefined);
      if (hooks) await hooks(store);
    });
    console.log(`added ${role} ${name}`);
    if (given === undefined) console.log(`password: ${password}`);
  });

  user
    .command('list')
    .description('list users')
    .option(SERVE_OPTIONS.db.flag, 'database')
    .action(async (flags: Record<string, unknown>) => {
      await withStore(flags.db, async (store) => {
        for (const u of await store.listUsers()) {
          console.log(`${u.name}\t${u.role}\t${u.hmacSecret ? 'hmac' : '-'}\t${u.createdAt.toISOString()}`);
        }
      });
    });

  user
    .command('remove <name>')
    .description('remove a user')
    .option(SERVE_OPTIONS.db.flag, 'database')
    .action(async (name: string, flags: Record<string, unknown>) => {
      const removed = await withStore(flags.db, (store) => store.removeUser(name));
      if (!removed) throw new Error(`no user named '${name}'`);
      console.log(`removed ${name}`);
    });
}
