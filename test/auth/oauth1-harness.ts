/**
 * @module test/auth/oauth1-harness
 * A real app (createApp, trust proxy loopback, body parsers) authenticating with OAuth1Scheme
 * over in-memory OAuth 1 credentials, a `/verify-*` route calling verifyOAuth1Request as the
 * /oauth1 endpoints do, a signer built on the RFC 5849 primitives, and a raw HTTP client that
 * may set Host (the RFC examples sign photos.example.net and example.com).
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeyLike } from 'node:crypto';
import { createApp } from '../../src/app.js';
import { Authenticator } from '../../src/auth/authenticator.js';
import { BasicScheme } from '../../src/auth/basic.js';
import { HmacScheme } from '../../src/auth/hmac.js';
import { MemoryNonceStore } from '../../src/auth/memory-nonce-store.js';
import type { NonceStore } from '../../src/auth/nonce-store.js';
import { signatureBaseString } from '../../src/auth/oauth1/base-string.js';
import type { OAuth1Consumer, OAuth1Credentials, OAuth1TokenCredentials, OAuth1TokenSecret } from '../../src/auth/oauth1/credentials.js';
import { OAuth1Scheme, type OAuth1SchemeOptions } from '../../src/auth/oauth1/oauth1-scheme.js';
import type { OAuth1Param } from '../../src/auth/oauth1/params.js';
import { oauthEncode } from '../../src/auth/oauth1/percent-encoding.js';
import { oauth1Signature, type OAuth1SignatureMethod } from '../../src/auth/oauth1/signature.js';
import { verifyOAuth1Request } from '../../src/auth/oauth1/verify.js';
import { SecretBox } from '../../src/auth/secret-box.js';
import type { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { urlencoded } from '../../src/middleware/urlencoded.js';
import { MemoryAuthStore } from './memory-store.js';

/** In-memory OAuth 1 credentials: the storage contract, nothing more. */
export class MemoryOAuth1Credentials implements OAuth1Credentials {
  readonly consumers = new Map<string, OAuth1Consumer>();
  readonly accessTokens = new Map<string, OAuth1TokenCredentials>();
  readonly temporary = new Map<string, OAuth1TokenSecret>();
  getConsumer(key: string): OAuth1Consumer | undefined {
    return this.consumers.get(key);
  }
  getAccessToken(token: string): Promise<OAuth1TokenCredentials | undefined> {
    return Promise.resolve(this.accessTokens.get(token));
  }
}

export interface Harness {
  url: string;
  port: number;
  credentials: MemoryOAuth1Credentials;
  users: MemoryAuthStore;
  /** The server clock (ms); tests move it. */
  clock: { now: number };
  close(): Promise<void>;
}

/** Starts the app; `options` go to the scheme (the clock and nonces are the harness's unless given). */
export async function startHarness(options: Partial<OAuth1SchemeOptions> & { nonces?: NonceStore } = {}): Promise<Harness> {
  const credentials = new MemoryOAuth1Credentials();
  const users = new MemoryAuthStore();
  const clock = { now: 1_700_000_000_000 };
  const nonces = options.nonces ?? new MemoryNonceStore();
  const now = (): number => clock.now;
  const scheme = new OAuth1Scheme({ credentials, store: users, nonces, now, production: false, ...options });
  const hmac = new HmacScheme({ store: users, box: new SecretBox(Buffer.alloc(32, 1)), nonces, now });
  const auth = new Authenticator([new BasicScheme({ store: users }), hmac, scheme]);
  const app = createApp({ env: 'development' });
  app.set('trust proxy', 'loopback');
  // What an /oauth1 endpoint does: verify with the lookups it needs, read the protocol parameters.
  app.post('/verify-initiate', (req: Request, res: Response, next: (err?: unknown) => void) => {
    verifyOAuth1Request(req, { consumers: (k) => credentials.getConsumer(k), nonces, now })
      .then((v) => res.json({ consumer: v.consumer.key, callback: v.protocol.get('oauth_callback') ?? null, place: v.protocolPlace }), next);
  });
  app.post('/verify-token', (req: Request, res: Response, next: (err?: unknown) => void) => {
    verifyOAuth1Request(req, { consumers: (k) => credentials.getConsumer(k), tokens: (t) => credentials.temporary.get(t), requireToken: true, nonces, now })
      .then((v) => res.json({ consumer: v.consumer.key, verifier: v.protocol.get('oauth_verifier') ?? null }), next);
  });
  app.use(auth.middleware());
  app.use(urlencoded());
  const answer = (req: Request, res: Response): void => {
    res.json({ caller: req.locals.caller ?? null, body: req.body ?? null });
  };
  app.all('/*', answer);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    credentials,
    users,
    clock,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface SignOptions {
  method: string;
  /** The URL the client signs (its scheme, host and path make the base string URI). */
  url: string;
  consumerKey: string;
  consumerSecret?: string;
  token?: string;
  tokenSecret?: string;
  rsaPrivateKey?: KeyLike;
  signatureMethod?: OAuth1SignatureMethod;
  timestamp: number;
  nonce: string;
  /** More protocol parameters (oauth_callback, oauth_verifier, oauth_body_hash, oauth_version). */
  extra?: Record<string, string>;
  /** Form body parameters, signed too. */
  form?: OAuth1Param[];
}

/** The protocol parameters of a signed request, `oauth_signature` last. */
export function signParams(o: SignOptions): OAuth1Param[] {
  const method = o.signatureMethod ?? 'HMAC-SHA1';
  const protocol: OAuth1Param[] = [
    { name: 'oauth_consumer_key', value: o.consumerKey },
    ...(o.token === undefined ? [] : [{ name: 'oauth_token', value: o.token }]),
    { name: 'oauth_signature_method', value: method },
    { name: 'oauth_timestamp', value: String(o.timestamp) },
    { name: 'oauth_nonce', value: o.nonce },
    ...Object.entries(o.extra ?? {}).map(([name, value]) => ({ name, value })),
  ];
  const url = new URL(o.url);
  const query: OAuth1Param[] = [...url.searchParams].map(([name, value]) => ({ name, value }));
  const base = signatureBaseString(o.method, `${url.protocol}//${url.host}${url.pathname}`, [...protocol, ...query, ...(o.form ?? [])]);
  const signature = oauth1Signature(method, base, { consumerSecret: o.consumerSecret, tokenSecret: o.tokenSecret, rsaPrivateKey: o.rsaPrivateKey });
  return [...protocol, { name: 'oauth_signature', value: signature }];
}

/** `OAuth realm="roa", name="value", …` of the parameters. */
export function authorizationOf(params: readonly OAuth1Param[], realm = 'roa'): string {
  return `OAuth realm="${realm}", ` + params.map((p) => `${oauthEncode(p.name)}="${oauthEncode(p.value)}"`).join(', ');
}

/** `a=b&c=d` of the parameters, §3.6-encoded. */
export function formOf(params: readonly OAuth1Param[]): string {
  return params.map((p) => `${oauthEncode(p.name)}=${oauthEncode(p.value)}`).join('&');
}

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): { caller?: Record<string, unknown> | null; body?: unknown; [k: string]: unknown };
}

/** One request with exactly these headers (Host included) and body. */
export function send(h: Harness, method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: h.port, method, path, agent: false, headers: { ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: () => JSON.parse(text) as ReturnType<RawReply['json']> }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
