/**
 * @module tls/credentials
 * The server's certificate and key: read from files, checked as a pair before anything listens,
 * and read again on SIGHUP so a renewed certificate is taken without dropping open connections.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';

/** Where the PEM certificate (chain) and private key are. */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** A PEM certificate (chain) and its private key, checked to belong together. */
export interface TlsCredentials {
  cert: Buffer;
  key: Buffer;
}

/** Oldest protocol version roa accepts: TLS 1.0 and 1.1 are deprecated (RFC 8996). */
export const TLS_MIN_VERSION = 'TLSv1.2' as const;

/** A certificate or key that cannot be used; the message is one line, fit for a start-up error. */
export class TlsConfigError extends Error {
  readonly code = 'ROA_ERR_TLS_CONFIG';
}

/**
 * Reads and checks a certificate and key. Throws a TlsConfigError naming the file and the fault:
 * missing, unreadable, not PEM, or a key that does not match the certificate.
 * @example
 *   const creds = loadTlsCredentials({ certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' });
 */
export function loadTlsCredentials(files: TlsFiles): TlsCredentials {
  const cert = readPem(files.certFile, 'certificate');
  const key = readPem(files.keyFile, 'key');
  checkPair({ cert, key }, files);
  return { cert, key };
}

function readPem(file: string, what: string): Buffer {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (err as Error).message;
    throw new TlsConfigError(`TLS ${what} ${file}: ${why}`);
  }
  if (!data.includes('-----BEGIN ')) throw new TlsConfigError(`TLS ${what} ${file}: not a PEM file`);
  return data;
}

/** OpenSSL's own check: builds a context, which fails for unparsable input or a mismatched pair. */
function checkPair(creds: TlsCredentials, files: TlsFiles): void {
  try {
    createSecureContext({ cert: creds.cert, key: creds.key } satisfies SecureContextOptions);
  } catch (err) {
    const message = (err as Error).message;
    if (/key values mismatch/i.test(message)) throw new TlsConfigError(`TLS key ${files.keyFile} does not match certificate ${files.certFile}`);
    throw new TlsConfigError(`TLS certificate ${files.certFile} or key ${files.keyFile} cannot be used: ${oneLine(message)}`);
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A server whose certificate can be swapped while it runs (tls.Server, https.Server, Http2SecureServer). */
export interface ReloadableServer {
  setSecureContext(options: SecureContextOptions): void;
}

/** Minimal logger shape; pino's `Logger` satisfies it. */
export interface ReloadLogger {
  info(o: object, m?: string): void;
  error(o: object, m?: string): void;
}

/**
 * Re-reads `files` on every `signal` (default SIGHUP) and gives the servers the new pair; open
 * connections keep the one they started with. A bad pair is logged and the old one kept, so a
 * botched renewal never takes the service down. Returns the function that stops listening.
 * @example
 *   const stop = reloadOnSignal([server], files, logger);
 */
export function reloadOnSignal(servers: ReloadableServer[], files: TlsFiles, logger: ReloadLogger, signal: NodeJS.Signals = 'SIGHUP'): () => void {
  const reload = (): void => {
    try {
      const creds = loadTlsCredentials(files);
      for (const server of servers) server.setSecureContext({ cert: creds.cert, key: creds.key, minVersion: TLS_MIN_VERSION });
      logger.info({ certFile: files.certFile }, 'TLS certificate reloaded');
    } catch (err) {
      logger.error({ err: (err as Error).message }, 'TLS certificate reload failed; keeping the previous one');
    }
  };
  process.on(signal, reload);
  return () => process.off(signal, reload);
}
