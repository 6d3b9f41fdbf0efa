/**
 * @module cli/commands/sign
 * `roa sign`: prints the headers that sign one request, for curl.
 */
import type { Command } from 'commander';
import { signRequest } from '../../client/sign-request.js';

export function registerSign(program: Command): void {
  program
    .command('sign <method> <target>')
    .description('print the hmac headers for one request (use with curl -H)')
    .requiredOption('--user <name>', 'user name')
    .option('--secret <secret>', 'the user\'s HMAC secret (or env ROA_HMAC_SECRET)')
    .option('--body <body>', 'request body: adds and signs Content-Digest')
    .option('--minimal', 'minimal form (no Date/nonce; replayable)')
    .action((method: string, target: string, flags: Record<string, unknown>) => {
      const secret = typeof flags.secret === 'string' ? flags.secret : process.env.ROA_HMAC_SECRET;
      if (!secret) throw new Error('--secret (or ROA_HMAC_SECRET) is required');
      const headers = signRequest({
        method,
        target,
        user: flags.user as string,
        secret,
        ...(typeof flags.body === 'string' ? { body: flags.body } : {}),
        minimal: flags.minimal === true,
      });
      for (const [name, value] of Object.entries(headers)) console.log(`${name}: ${value}`);
    });
}
