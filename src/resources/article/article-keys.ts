/**
 * @module resources/article/article-keys
 * What `{key}` in `/article/{key}` names: all digits → the server's numeric id; else a slug.
 */

const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const ID = /^[0-9]+$/;

export type ArticleKey = { kind: 'id'; id: number } | { kind: 'slug'; slug: string } | { kind: 'invalid' };

export function parseArticleKey(key: string | undefined): ArticleKey {
  if (key === undefined) return { kind: 'invalid' };
  if (ID.test(key)) {
    const id = Number(key);
    return Number.isSafeInteger(id) && id > 0 ? { kind: 'id', id } : { kind: 'invalid' };
  }
  return SLUG.test(key) ? { kind: 'slug', slug: key } : { kind: 'invalid' };
}
