/**
 * @module cli/main
 * The command table: each subcommand parses its flags and calls into the library.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerGateway } from './commands/gateway.js';
import { registerServe } from './commands/serve.js';
import { registerUser } from './commands/user.js';
import { registerClient } from './commands/client.js';
import { registerSign } from './commands/sign.js';
import { registerCert } from './commands/cert.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Builds the program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command('roa')
    .description('roa: resource-oriented HTTP APIs — the article service, its caching gateway and tools')
    .version(version(), '-v, --version')
    .showHelpAfterError()
    .exitOverride();
  registerServe(program);
  registerGateway(program);
  registerUser(program);
  registerClient(program);
  registerSign(program);
  registerCert(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      if (err.exitCode === 0) return;
      process.exit(1);
    }
    throw err;
  }
}
