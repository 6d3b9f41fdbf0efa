/**
 * @module auth/authenticator
 * Runs the enabled schemes against a request and turns failures into 401s carrying every challenge.
 */
import { HttpError } from '../errors/http-error.js';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { malformedCredentials } from './errors.js';
import { CALLER_KEY, isThenable, type AuthScheme, type Caller } from './scheme.js';

/**
 * Picks the scheme whose credentials the request carries and resolves the caller.
 * @example
 *   const auth = new Authenticator([new BasicScheme({ store }), new HmacScheme({ store, key, nonces })]);
 *   const caller = await auth.authenticate(req); // undefined when anonymous
 */
export class Authenticator {
  readonly schemes: readonly AuthScheme[];
  /**
   * Called once per 401 for credentials that did not verify, with the scheme's lower-case name
   * (`unsupported` for credentials of a scheme not run): the failures metric per scheme.
   */
  onFailure: ((scheme: string) => void) | undefined = undefined;

  constructor(schemes: AuthScheme[]) {
    const names = new Set<string>();
    for (const s of schemes) {
      const lower = s.name.toLowerCase();
      if (names.has(lower)) throw new Error(`Authenticator: scheme "${s.name}" registered twice`);
      names.add(lower);
    }
    this.schemes = [...schemes];
  }

  /** Every enabled scheme's challenge, in registration order (RFC 9110 §11.6.1 allows several). */
  challenges(): string[] {
    return this.schemes.map((s) => s.challenge());
  }

  /**
   * The caller, or undefined when the request carries no credentials of an enabled scheme (anonymous).
   * Throws the scheme's HttpError on bad credentials; a 401 gets WWW-Authenticate with all challenges.
   * The result is cached on `req.locals.caller`, so a second call costs nothing.
   */
  async authenticate(req: Request): Promise<Caller | undefined> {
    return this.resolve(req);
  }

  /**
   * `authenticate` without the promise when the scheme answered synchronously (cached records, no
   * nonce: the hot path); a promise otherwise. Throws (or rejects) as `authenticate` rejects.
   */
  resolve(req: Request): Caller | undefined | Promise<Caller | undefined> {
    const result = this.start(req);
    if (!isThenable(result)) return result;
    return result.then(
      (caller) => (req.locals[CALLER_KEY] = caller),
      (err: unknown) => {
        throw this.withChallenges(err);
      },
    );
  }

  /**
   * The scheme's answer: the caller (cached on the request), undefined when anonymous, or the scheme's
   * own promise, which the caller of `start` caches and whose refusal it passes through `withChallenges`.
   */
  private start(req: Request): Caller | undefined | Promise<Caller> {
    const cached = req.locals[CALLER_KEY] as Caller | undefined;
    if (cached !== undefined) return cached;
    if (req.headers.authorization !== undefined && req.headers.authentication !== undefined) {
      // Two identities in one request (Basic or Bearer, and hmac): answering as either would ignore
      // the other silently. Refused like two bearer tokens are (RFC 6750 §3.1, invalid_request).
      throw malformedCredentials('Send the credentials of one authentication scheme, not Authorization and Authentication together');
    }
    const scheme = this.schemeFor(req);
    if (scheme === undefined) {
      // Credentials of a scheme we do not run are not "anonymous": answering as anonymous could let a
      // client believe it was authenticated. RFC 9110 §11.6.1: answer 401 with what we accept.
      if (hasUnknownCredentials(req)) {
        this.onFailure?.('unsupported');
        throw this.unauthorized('Unsupported authentication scheme');
      }
      return undefined;
    }
    let result: Caller | Promise<Caller>;
    try {
      result = scheme.authenticateNow !== undefined ? scheme.authenticateNow(req) : scheme.authenticate(req);
    } catch (err) {
      throw this.withChallenges(err);
    }
    if (isThenable(result)) return Promise.resolve(result);
    req.locals[CALLER_KEY] = result;
    return result;
  }

  private schemeFor(req: Request): AuthScheme | undefined {
    for (let i = 0; i < this.schemes.length; i++) {
      const scheme = this.schemes[i]!;
      if (!scheme.matches(req)) continue;
      // Credentials of two schemes in one request (OAuth 1 parameters in the query beside Basic,
      // say): refused like Authorization + Authentication above, never answered as one of them.
      for (let j = i + 1; j < this.schemes.length; j++) {
        if (this.schemes[j]!.matches(req)) throw malformedCredentials(`Send the credentials of one authentication scheme, not ${scheme.name} and ${this.schemes[j]!.name} together`);
      }
      return scheme;
    }
    return undefined;
  }

  /** A 401 carrying every challenge (for handlers that require a caller when there is none). */
  unauthorized(message = 'Authentication required'): HttpError {
    return new HttpError(401, message, {
      code: 'ROA_ERR_UNAUTHORIZED',
      headers: { 'WWW-Authenticate': this.challenges().join(', ') },
    });
  }

  /** Middleware: authenticates (anonymous allowed) and passes errors to the error chain. */
  middleware(): (req: Request, res: Response, next: NextFunction) => void {
    return this.gate(() => undefined);
  }

  /** Middleware: like `middleware()`, but an anonymous request is refused with 401 and every challenge. */
  required(): (req: Request, res: Response, next: NextFunction) => void {
    return this.gate((caller) => (caller === undefined ? this.unauthorized() : undefined));
  }

  /**
   * A middleware that resolves the caller and calls `next` with what `decide` makes of it, or with
   * the refusal; synchronously when the scheme answered without a promise.
   */
  private gate(decide: (caller: Caller | undefined) => unknown): (req: Request, res: Response, next: NextFunction) => void {
    return (req, _res, next) => {
      let result: Caller | undefined | Promise<Caller>;
      try {
        result = this.start(req);
      } catch (err) {
        next(err);
        return;
      }
      if (!isThenable(result)) {
        next(decide(result));
        return;
      }
      // One step on the scheme's own promise (caching and deciding together), not one per layer:
      // this is the path of every replay-protected request, which waits for its nonce.
      result.then(
        (caller) => {
          req.locals[CALLER_KEY] = caller;
          next(decide(caller));
        },
        (err: unknown) => next(this.withChallenges(err)),
      );
    };
  }

  private withChallenges(err: unknown): unknown {
    if (!(err instanceof HttpError) || err.status !== 401) return err;
    // Keep the failing scheme's own challenge (e.g. Bearer error="invalid_token", RFC 6750 §3) first.
    const own = err.headers['WWW-Authenticate'];
    const ownName = own?.split(' ', 1)[0]?.toLowerCase();
    this.onFailure?.(ownName || 'unknown');
    const rest = this.schemes.filter((s) => s.name.toLowerCase() !== ownName).map((s) => s.challenge());
    const all = own === undefined ? this.challenges() : [own, ...rest];
    return new HttpError(401, err.message, {
      code: err.code,
      expose: err.expose,
      type: err.type,
      extensions: err.extensions,
      headers: { ...err.headers, 'WWW-Authenticate': all.join(', ') },
      cause: err.cause,
    });
  }
}

function hasUnknownCredentials(req: Request): boolean {
  return req.headers.authorization !== undefined || req.headers.authentication !== undefined;
}
