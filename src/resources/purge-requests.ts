/** @module resources/purge-requests — what a purge sends to one cache node: one PURGE per URL and the tags in as few `xkey` PURGEs as the header bound allows. */
import type { PurgeTarget } from './purger.js';

/** One PURGE request: the path (the node's prefix is added later) and its extra headers. */
export interface PurgeRequest {
  path: string;
  headers: Record<string, string>;
}

/**
 * Varnish's default `http_req_hdr_len` is 8 KiB; tags are split over several PURGE requests so
 * one `xkey` header stays well below it.
 */
export const MAX_XKEY_HEADER = 4000;

/** The union of several writes' targets, each URL and tag once, in first-seen order. */
export class MergedTarget {
  readonly urls = new Set<string>();
  readonly tags = new Set<string>();

  add(target: PurgeTarget): void {
    for (const url of target.urls) this.urls.add(url);
    for (const tag of target.tags) this.tags.add(tag);
  }

  toTarget(): PurgeTarget {
    return { urls: [...this.urls], tags: [...this.tags] };
  }
}

/**
 * The PURGE requests for `target`. URLs that are not absolute paths and tags that are empty or hold
 * whitespace or a comma (the xkey header's separators, vmod_xkey) are left out and reported.
 */
export function purgeRequests(
  urls: Iterable<string>,
  tags: Iterable<string>,
  reject: (what: 'url' | 'tag', value: unknown) => void,
  maxHeader = MAX_XKEY_HEADER,
): PurgeRequest[] {
  const out: PurgeRequest[] = [];
  for (const url of urls) {
    if (typeof url !== 'string' || !url.startsWith('/')) {
      reject('url', url);
      continue;
    }
    out.push({ path: url, headers: {} });
  }
  let chunk = '';
  for (const tag of tags) {
    if (typeof tag !== 'string' || tag.length === 0 || /[\s,]/.test(tag)) {
      reject('tag', tag);
      continue;
    }
    if (chunk !== '' && chunk.length + 1 + tag.length > maxHeader) {
      out.push({ path: '/', headers: { xkey: chunk } });
      chunk = '';
    }
    chunk = chunk === '' ? tag : `${chunk} ${tag}`;
  }
  if (chunk !== '') out.push({ path: '/', headers: { xkey: chunk } });
  return out;
}
