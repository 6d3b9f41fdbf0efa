/** @module Scenario "routing" (issue 2): GitHub-like table, three endpoints, roa vs raw node, express@4, fastify@5. */
import { fileURLToPath } from 'node:url';
import { targets } from '../lib/routes.mjs';

const server = (name, file = name, env = {}) => ({
  name,
  cmd: process.execPath,
  args: [fileURLToPath(new URL(`../servers/${file}.mjs`, import.meta.url))],
  env,
});

// ~200 bytes of JSON, so the echo run measures body parsing, not just routing.
const ECHO_BODY = JSON.stringify({
  id: 4242,
  title: 'Routing benchmark payload',
  body: 'A small JSON document echoed back by every server under test.',
  labels: ['bench', 'routing', 'json'],
  assignee: { login: 'octocat', id: 1 },
  draft: false,
});

/** @type {import('../run.mjs').Scenario} */
export default {
  name: 'routing',
  description: 'GET / (text), the near-end param route of the GitHub table, POST /echo (JSON body).',
  subject: 'roa',
  peers: ['node', 'fastify', 'express'],
  // roa-express: servers/express.mjs's code itself, on roa/express (issue 30); `--subject roa-express` for its ratios.
  servers: [server('roa'), server('node'), server('express'), server('fastify'), server('roa-express', 'express', { BENCH_EXPRESS: 'roa' })],
  requests: [
    {
      name: 'root text',
      method: 'GET',
      path: '/',
      expect: { status: 200, body: 'Hello World' },
    },
    {
      name: 'param route',
      method: 'GET',
      path: targets.param,
      expect: { status: 200, json: { owner: 'foo', repo: 'bar', number: '42' } },
    },
    {
      name: 'POST /echo',
      method: 'POST',
      path: '/echo',
      body: ECHO_BODY,
      headers: { 'Content-Type': 'application/json' },
      expect: { status: 200, json: JSON.parse(ECHO_BODY) },
    },
  ],
};
