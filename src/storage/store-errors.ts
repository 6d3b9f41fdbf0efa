/** @module storage/store-errors The roa errors the storage layer raises, so no caller sees driver error codes. */
import { HttpError } from '../errors/http-error.js';

export function userExists(name: string): HttpError {
  return new HttpError(409, `User "${name}" already exists`, { code: 'ROA_ERR_USER_EXISTS' });
}

export function clientExists(clientId: string): HttpError {
  return new HttpError(409, `OAuth client "${clientId}" already exists`, { code: 'ROA_ERR_CLIENT_EXISTS' });
}

export function userNotFound(name: string): HttpError {
  return new HttpError(404, `User "${name}" does not exist`, { code: 'ROA_ERR_USER_NOT_FOUND' });
}

/** The database cannot be reached or opened; 503 so clients may retry (RFC 9110 §15.6.4). */
export function storeUnavailable(message: string, cause?: unknown): HttpError {
  return new HttpError(503, message, { code: 'ROA_ERR_STORE_UNAVAILABLE', cause, expose: false });
}

/** Any other driver failure: a bug or a broken database, never the client's fault. */
export function storeFailure(message: string, cause?: unknown): HttpError {
  return new HttpError(500, message, { code: 'ROA_ERR_STORE', cause, expose: false });
}

/** The driver package of the configured database is not installed (see load-driver). */
export function driverMissing(kind: string, pkg: string, cause?: unknown): HttpError {
  return new HttpError(500, `${kind} storage needs the ${pkg} package: npm install ${pkg}`, { code: 'ROA_ERR_STORE_DRIVER_MISSING', cause, expose: false });
}
