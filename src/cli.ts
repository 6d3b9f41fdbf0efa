#!/usr/bin/env node
/**
 * @module cli
 * The `roa` executable: hands argv to the command table.
 */
import { main } from './cli/main.js';

main(process.argv).catch((err: unknown) => {
  // One clear line and exit code 1; stacks only when asked for.
  const message = err instanceof Error ? err.message : String(err);
  console.error(`roa: ${message}`);
  if (process.env.ROA_DEBUG) console.error(err);
  process.exit(1);
});
