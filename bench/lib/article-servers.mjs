/** @module Server definitions shared by the article scenarios (articles, auth, gateway). */
import { fileURLToPath } from 'node:url';

/** A bench server script run by this Node, with extra environment. */
export function nodeServer(name, script, env = {}, extra = {}) {
  return {
    name,
    cmd: process.execPath,
    args: [fileURLToPath(new URL(`../servers/${script}.mjs`, import.meta.url))],
    env,
    ...extra,
  };
}

/** The XML GET /article/1 answers for the seeded article. */
export const ARTICLE_XML = '<article><title>Benchmark article</title><price currency="eur">9.99</price></article>';
