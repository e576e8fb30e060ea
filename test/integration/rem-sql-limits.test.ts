import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { HashedLexicalEmbedder } from '../../src/rem/embeddings/hashed-lexical.js';
import { createSearchTool } from '../../src/tools/builtin/search.js';
import { RemService } from '../../src/rem/service.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { IngestDocument, RemQueryDocument } from '../generated/graphql.js';
import { contextOf, errorCode, newUser, type Caller } from '../support/client.js';
import { backend, startTestServer, tempDataDir, type TestServer } from '../support/server.js';

/** SQL mode's limits, attacked through remQuery over HTTP; the other suites cover ordinary use. */

async function rem(user: Caller, query: string) {
  return (await user.data(RemQueryDocument, { query })).remQuery;
}

async function remError(user: Caller, query: string) {
  const res = await user.request(RemQueryDocument, { query });
  expect(res.body.data).toBeNull();
  return { code: errorCode(res), message: res.body.errors![0]!.message };
}

async function remember(user: Caller, key: string) {
  const data = await user.data(IngestDocument, { items: [{ entity: { key, content: `${key} content` } }] });
  expect(data.ingest.__typename).toBe('IngestSuccess');
}

const healthz = (server: TestServer) => fetch(new URL('/healthz', server.url)).then((res) => res.status);

describe('SQL mode refuses what could hurt the server, and nothing changes', () => {
  let server: TestServer;
  let user: Caller;
  beforeAll(async () => {
    server = await startTestServer();
    user = newUser(server.url);
    await remember(user, 'kept-entity');
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each([
    ['a recursive CTE', 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r', /recursive/],
    ['an unbounded generator', 'SELECT count(*) FROM generate_series(1, 1000000000000)', /generate_series/],
    ['a generator over a column', 'SELECT count(*) FROM entities, generate_series(1, length(content) * 100000)', /generate_series/],
    ['a huge string builder', "SELECT length(repeat('x', 100000000))", /repeat/],
    ['a padded huge string', "SELECT length(lpad('', 100000000, 'x'))", /lpad/],
    [
      'compounding replacements',
      "SELECT length(replace(replace(replace(content, 'e', 'eeeeeeeeee'), 'e', 'eeeeeeeeee'), 'e', 'eeeeeeeeee')) FROM entities",
      /already lengthened/,
    ],
    ['string_agg over generated rows', "SELECT length(string_agg(content, '')) FROM entities, generate_series(1, 10000000)", /generate_series/],
    ['DDL', 'CREATE TABLE stolen AS SELECT * FROM entities', /only SELECT/],
    ['DML', "UPDATE entities SET content = 'gone'", /only SELECT/],
    ['a data-modifying CTE', 'WITH d AS (DELETE FROM entities RETURNING *) SELECT count(*) FROM d', /DELETE/],
    ['multiple statements', "SELECT 1; UPDATE entities SET content = 'gone'", /one statement/],
    ['a locking clause', 'SELECT key FROM entities FOR UPDATE', /locking/],
    ['a sleep', 'SELECT pg_sleep(30)', /pg_sleep/],
  ])('refuses %s with FORBIDDEN', async (_name, sql, message) => {
    const error = await remError(user, `SQL ${sql}`);
    expect(error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(message) });
    const rows = await rem(user, 'SQL SELECT key, content FROM entities');
    expect(rows.rows).toEqual([{ key: 'kept-entity', content: 'kept-entity content' }]);
    expect(await healthz(server)).toBe(200);
  });

  it('caps the bytes it returns', async () => {
    const capped = await startTestServer({ REM_SQL_MAX_BYTES: '1024' });
    try {
      const result = await rem(newUser(capped.url), "SQL SELECT n, lpad('', 500, 'x') AS pad FROM generate_series(1, 10) n ORDER BY n");
      expect(result.rows).toEqual([{ n: 1, pad: 'x'.repeat(500) }]);
      expect(result.truncated).toBe(true);
    } finally {
      await capped.stop();
    }
  });
});

describe('SQL mode is bounded in time and never blocks other requests', () => {
  // A query the guard lets through once the series bound is lifted: seconds of work on either backend.
  const slow = (rows: number) => `SQL SELECT count(*)::int AS n FROM generate_series(1, ${rows}) AS g`;
  const heavy = { REM_SQL_MAX_SERIES_ROWS: '1000000000', REM_SQL_MAX_COST: '1e15' };

  it('cuts off a query that runs past REM_SQL_STATEMENT_TIMEOUT_MS with LIMIT_EXCEEDED; data and other callers intact', async () => {
    const server = await startTestServer({ ...heavy, REM_SQL_STATEMENT_TIMEOUT_MS: '1000' });
    try {
      const user = newUser(server.url);
      await remember(user, 'survivor');
      const other = newUser(server.url);
      await remember(other, 'bystander');
      const runaway = remError(user, slow(1_000_000_000));
      // Another caller's query waits behind the runaway one on PGlite, and is answered all the same.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const bystander = rem(other, 'LOOKUP "bystander"');
      expect(await runaway).toMatchObject({ code: 'LIMIT_EXCEEDED', message: expect.stringMatching(/longer than the 1000 ms/) });
      expect((await bystander).hits.map((h) => h.key)).toEqual(['bystander']);
      expect((await rem(user, 'LOOKUP "survivor"')).hits.map((h) => h.content)).toEqual(['survivor content']);
      expect((await rem(user, 'SQL SELECT count(*)::int AS n FROM entities')).rows).toEqual([{ n: 1 }]);
      await remember(user, 'written-after');
      expect((await rem(user, 'SQL SELECT key FROM entities ORDER BY key')).rows).toEqual([{ key: 'survivor' }, { key: 'written-after' }]);

      // The agents' search tool is held to the same rules and limits.
      const rules = loadConfig({ ...heavy, REM_SQL_STATEMENT_TIMEOUT_MS: '1000' }).rem;
      const search = createSearchTool(
        new RemService(
          { prisma: server.db.prisma, sql: server.db.sql, embedder: new HashedLexicalEmbedder(), interruptAfter: server.db.interruptAfter },
          rules,
        ),
      );
      const ctx = { agent: contextOf(user), emit: () => {} } as unknown as ToolContext;
      const recursive = 'SQL WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r';
      expect(await search.handler({ query: recursive }, ctx)).toMatchObject({ error: { code: 'FORBIDDEN', message: expect.stringMatching(/recursive/) } });
      expect(await search.handler({ query: slow(1_000_000_000) }, ctx)).toMatchObject({ error: { code: 'LIMIT_EXCEEDED' } });
      expect(await search.handler({ query: 'LOOKUP "survivor"' }, ctx)).toMatchObject({ hits: [{ key: 'survivor' }] });
    } finally {
      await server.stop();
    }
  });

  it('answers /healthz while a heavy SQL-mode query runs', async () => {
    const server = await startTestServer({ ...heavy, REM_SQL_STATEMENT_TIMEOUT_MS: '300000' });
    try {
      const user = newUser(server.url);
      const order: string[] = [];
      // Long enough to outlast the three health checks by seconds (~6 s on this suite's 2-core machine).
      const rows = backend() === 'pglite' ? 10_000_000 : 30_000_000;
      const query = rem(user, slow(rows)).then((result) => {
        order.push('query');
        return result;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (let i = 0; i < 3; i++) {
        expect(await healthz(server)).toBe(200);
        order.push('healthz');
      }
      expect((await query).rows).toEqual([{ n: rows }]);
      expect(order).toEqual(['healthz', 'healthz', 'healthz', 'query']);
    } finally {
      await server.stop();
    }
  });
});

describe.runIf(backend() === 'pglite')('PGlite data directory', () => {
  it('is created readable by its owner only (0700)', async () => {
    const dataDir = await tempDataDir();
    const server = await startTestServer({ DATA_DIR: dataDir });
    try {
      expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    } finally {
      await server.stop();
    }
  });
});
