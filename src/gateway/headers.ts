/**
 * @module gateway/headers
 * Header-field plumbing for the proxy: hop-by-hop removal, joining repeated fields, raw arrays.
 */

/** RFC 9110 §7.6.1: connection-specific fields a proxy must not forward (plus the legacy ones). */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade',
]);

/** RFC 9111 §3.1: fields specific to the proxy the cache talks to; never stored. */
export const PROXY_SPECIFIC = new Set(['proxy-authenticate', 'proxy-authentication-info', 'proxy-authorization']);

/**
 * Surrogate keys: the tags a cache purges by (vmod_xkey's `xkey`, Fastly's `Surrogate-Key`). Kept
 * with a stored response, never sent to clients (the shipped VCL unsets them in vcl_deliver too).
 */
const SURROGATE_KEYS: ReadonlySet<string> = new Set(['xkey', 'surrogate-key']);

/**
 * Whether an origin's field goes on to clients as it is: not `Via` (this hop writes its own) and not
 * a surrogate key.
 */
export function passesToClient(field: Field): boolean {
  return field.lower !== 'via' && !SURROGATE_KEYS.has(field.lower);
}

/** One header field after joining: original-case name, lower-case name, value. */
export interface Field {
  name: string;
  lower: string;
  value: string;
}

/**
 * Turns node's `rawHeaders` into a field list with hop-by-hop fields (and the fields the
 * `Connection` header names, RFC 9110 §7.6.1) removed, and repeated field lines joined with
 * ", " in order (RFC 9110 §5.3). Set-Cookie is the exception: its values may contain commas,
 * so each line stays separate (RFC 9110 §5.3, RFC 6265 §3).
 */
export function collectFields(raw: readonly string[], drop?: ReadonlySet<string>): Field[] {
  let connectionListed: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 10 && raw[i]!.toLowerCase() === 'connection') {
      connectionListed ??= new Set();
      for (const t of raw[i + 1]!.split(',')) {
        const name = t.trim().toLowerCase();
        if (name !== '') connectionListed.add(name);
      }
    }
  }
  const out: Field[] = [];
  const index = new Map<string, number>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || connectionListed?.has(lower) || drop?.has(lower)) continue;
    const value = raw[i + 1]!;
    const at = lower === 'set-cookie' ? undefined : index.get(lower);
    if (at === undefined) {
      index.set(lower, out.length);
      out.push({ name, lower, value });
    } else {
      out[at]!.value += ', ' + value;
    }
  }
  return out;
}

/** Lower-case name -> value (Set-Cookie lines joined too: only for reading, never for sending). */
export function fieldMap(fields: readonly Field[]): Record<string, string> {
  const map: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const f of fields) map[f.lower] = f.lower in map ? map[f.lower] + ', ' + f.value : f.value;
  return map;
}

/** The flat [name, value, name, value…] form `writeHead` and `http.request` accept. */
export function flatten(fields: readonly Field[]): string[] {
  const out: string[] = new Array<string>(fields.length * 2);
  for (let i = 0; i < fields.length; i++) {
    out[2 * i] = fields[i]!.name;
    out[2 * i + 1] = fields[i]!.value;
  }
  return out;
}

/** Appends this hop to a Via value (RFC 9110 §7.6.3). */
export function addVia(existing: string | undefined, pseudonym: string): string {
  return existing === undefined || existing === '' ? `1.1 ${pseudonym}` : `${existing}, 1.1 ${pseudonym}`;
}
