/**
 * @module One request to a server under test, for the harness's sanity check: over plain HTTP (fetch), over
 * HTTPS as wrk speaks it (HTTP/1.1, no ALPN offered) or over HTTP/2 as h2load does (ALPN h2). TLS clients
 * verify the chain against the run's CA, and report what was negotiated.
 */
import http2 from 'node:http2';
import https from 'node:https';

const TIMEOUT_MS = 5000;

/**
 * @typedef {{ status: number, header(name: string): string | null, text: string, tls?: { protocol: string, cipher: string, alpn: string } }} Probed
 */

/** What a TLS socket negotiated: protocol version, cipher suite, ALPN ('none' when no protocol was agreed). */
function negotiated(socket) {
  return { protocol: socket.getProtocol(), cipher: socket.getCipher()?.name, alpn: socket.alpnProtocol || 'none' };
}

function headerGetter(headers) {
  return (name) => {
    const v = headers[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : String(v);
  };
}

function overHttps(port, req, headers, ca) {
  return new Promise((resolve, reject) => {
    const r = https.request(
      { host: '127.0.0.1', port, path: req.path, method: req.method, headers, ca, agent: false, timeout: TIMEOUT_MS },
      (res) => {
        const tls = negotiated(res.socket);
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, header: headerGetter(res.headers), text: Buffer.concat(chunks).toString('utf8'), tls }));
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    r.on('error', reject);
    r.end(req.body);
  });
}

function overH2(port, req, headers, ca) {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { ca });
    const timer = setTimeout(() => session.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    const fail = (e) => {
      clearTimeout(timer);
      session.destroy();
      reject(e);
    };
    session.on('error', fail);
    const stream = session.request({ ':method': req.method, ':path': req.path, ...lowerCase(headers) });
    stream.on('error', fail);
    stream.on('response', (h) => {
      const tls = negotiated(session.socket);
      const chunks = [];
      stream.on('data', (c) => chunks.push(c));
      stream.on('end', () => {
        clearTimeout(timer);
        session.close();
        resolve({ status: Number(h[':status']), header: headerGetter(h), text: Buffer.concat(chunks).toString('utf8'), tls });
      });
    });
    stream.end(req.body);
  });
}

/** HTTP/2 forbids upper-case field names. */
function lowerCase(headers = {}) {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * Sends `req` to 127.0.0.1:`port`. `protocol`: 'http' (default), 'https' (HTTP/1.1 over TLS) or 'h2'.
 * @param {number} port
 * @param {{ method: string, path: string, body?: string, headers?: Record<string, string> | (() => Record<string, string>) }} req
 * @param {{ protocol?: 'http' | 'https' | 'h2', ca?: Buffer }} [o]
 * @returns {Promise<Probed>}
 */
export async function probe(port, req, o = {}) {
  const headers = typeof req.headers === 'function' ? req.headers() : req.headers;
  const protocol = o.protocol ?? 'http';
  if (protocol === 'https') return overHttps(port, req, headers, o.ca);
  if (protocol === 'h2') return overH2(port, req, headers, o.ca);
  const res = await fetch(`http://127.0.0.1:${port}${req.path}`, { method: req.method, headers, body: req.body, signal: AbortSignal.timeout(TIMEOUT_MS) });
  return { status: res.status, header: (name) => res.headers.get(name), text: await res.text() };
}
