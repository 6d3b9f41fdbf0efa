/** @module test/helpers/log-capture — a pino logger whose JSON lines a test can read back. */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

/** An `info` pino logger writing into memory, and its lines parsed. */
export function captureLogs(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  const logger = pino({ level: 'info' }, stream) as unknown as Logger;
  return { logger, lines: () => chunks.join('').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}
