/**
 * @module operations/graceful-shutdown
 * SIGTERM and SIGINT for a long-running command: one log line when shutdown starts, the graceful
 * shutdown itself, one log line with what it had to cut or abandon, exit 0.
 */

export interface ShutdownLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What a graceful shutdown had to cut or abandon, for its closing log line. */
export type ShutdownReport = object;

/**
 * Runs `shutdown` on the first SIGTERM or SIGINT, then exits 0 (1 if it threw). A second signal
 * while it runs exits at once with 1: an operator pressing Ctrl-C twice means it.
 * @example
 *   exitGracefullyOnSignals((timeoutMs) => running.shutdown({ timeoutMs }), 10_000, running.logger);
 */
export function exitGracefullyOnSignals(shutdown: (timeoutMs: number) => Promise<ShutdownReport>, timeoutMs: number, logger: ShutdownLogger, exit: (code: number) => void = (code) => process.exit(code)): void {
  let started = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (started) {
      logger.error({ signal }, 'shutdown: second signal, exiting now');
      exit(1);
      return;
    }
    started = true;
    const t0 = performance.now();
    logger.info({ signal, timeoutMs }, 'shutdown started: no new connections, finishing requests in flight');
    shutdown(timeoutMs).then(
      (report) => {
        logger.info({ ...report, durationMs: Math.round(performance.now() - t0) }, 'shutdown complete');
        exit(0);
      },
      (err: unknown) => {
        logger.error({ err: err instanceof Error ? err.message : String(err), durationMs: Math.round(performance.now() - t0) }, 'shutdown failed');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
