import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEventBody } from '../../src/events/agent-event.js';
import { HashedLexicalEmbedder } from '../../src/rem/embeddings/hashed-lexical.js';
import { createSearchTool } from '../../src/tools/builtin/search.js';
import { messageKey } from '../../src/sessions/messages.js';
import { RemService } from '../../src/rem/service.js';
import { loadConfig } from '../../src/config/config.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { CreateSessionDocument, IngestDocument, RemQueryDocument, type MemoryItemInput } from '../generated/graphql.js';
import { contextOf, errorCode, newUser, type Caller } from '../support/client.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

const sqlDefaults = loadConfig({}).rem.sql;

/** The service as the server builds it, with other SQL-mode limits. */
function serviceWith(sql: Partial<typeof sqlDefaults>) {
  return new RemService(
    { prisma: server.db.prisma, sql: server.db.sql, embedder: new HashedLexicalEmbedder(), interruptAfter: server.db.interruptAfter },
    { searchMinSimilarity: 0.3, fuzzyCandidates: 200, sql: { ...sqlDefaults, ...sql } },
  );
}

async function ingest(user: Caller, items: MemoryItemInput[]) {
  const data = await user.data(IngestDocument, { items });
  if (data.ingest.__typename !== 'IngestSuccess') throw new Error(JSON.stringify(data.ingest));
  return data.ingest;
}

async function rem(user: Caller, query: string) {
  return (await user.data(RemQueryDocument, { query })).remQuery;
}

async function remError(user: Caller, query: string) {
  const res = await user.request(RemQueryDocument, { query });
  expect(res.body.data).toBeNull();
  return { code: errorCode(res), message: res.body.errors![0]!.message, extensions: res.body.errors![0]!.extensions };
}

const graph: MemoryItemInput[] = [
  {
    entity: {
      key: 'Sarah Chen',
      name: 'Sarah Chen',
      entityType: 'person',
      content: 'Sarah Chen is a machine learning engineer who reviews overdue invoices.',
      graphEdges: [
        { dst: 'quarterly-report', relType: 'authored', weight: 0.8 },
        { dst: 'finance-team', relType: 'member_of' },
      ],
    },
  },
  {
    entity: {
      key: 'quarterly-report',
      name: 'Quarterly report',
      content: 'Q3 quarterly report on overdue invoices and the budget.',
      graphEdges: [
        { dst: 'sarah-chen', relType: 'authored_by' },
        { dst: 'budget-2026', relType: 'references', weight: 0.5 },
      ],
    },
  },
  {
    entity: {
      key: 'finance-team',
      name: 'Finance team',
      content: 'The finance team pays suppliers.',
      graphEdges: [{ dst: 'sarah-chen', relType: 'has_member' }],
    },
  },
  { entity: { key: 'budget-2026', name: 'Budget 2026', content: 'Budget plan for 2026.', graphEdges: [{ dst: 'quarterly-report', relType: 'cited_by' }] } },
  { resource: { key: 'invoice-policy', name: 'Invoice policy', content: 'Invoices overdue by 30 days are escalated to finance.', category: 'policy' } },
  { moment: { key: 'q3-review-meeting', name: 'Q3 review', summary: 'Meeting about the quarterly report', momentType: 'meeting' } },
];

describe('REM query modes', () => {
  let alice: Caller;
  beforeAll(async () => {
    alice = newUser(server.url);
    await ingest(alice, graph);
  });

  it('LOOKUP finds one or several keys, normalised, with full content', async () => {
    const result = await rem(alice, 'lookup "Sarah Chen", \'quarterly-report\', "no-such-key"');
    expect(result.mode).toBe('LOOKUP');
    expect(result.hits.map((h) => h.key)).toEqual(['sarah-chen', 'quarterly-report']);
    expect(result.hits[0]).toMatchObject({
      entityType: 'entities',
      name: 'Sarah Chen',
      score: 1,
      content: 'Sarah Chen is a machine learning engineer who reviews overdue invoices.',
    });
    expect(result.hits[0]!.edges.map((e) => e.dst)).toEqual(['quarterly-report', 'finance-team']);
    expect(result.tookMs).toBeGreaterThanOrEqual(0);
    const resource = await rem(alice, 'LOOKUP "invoice-policy"');
    expect(resource.hits[0]).toMatchObject({ entityType: 'resources', key: 'invoice-policy' });
  });

  it('FUZZY matches keys by word similarity with typos, above the threshold', async () => {
    const result = await rem(alice, 'FUZZY "sara chen" THRESHOLD 0.4 LIMIT 5');
    expect(result.mode).toBe('FUZZY');
    expect(result.hits[0]!.key).toBe('sarah-chen');
    expect(result.hits.every((h) => h.score! >= 0.4)).toBe(true);
    // One word of a longer key is enough: word similarity compares the text with runs of the key's words.
    const word = await rem(alice, 'FUZZY "quartrly"');
    expect(word.hits.map((h) => h.key)).toEqual(['quarterly-report']);
    // Summaries and content are not matched (SEARCH is for text): "suppliers" is only in finance-team's content.
    expect((await rem(alice, 'FUZZY "suppliers"')).hits).toEqual([]);
    const strict = await rem(alice, 'FUZZY "zzzz qqqq" THRESHOLD 0.9');
    expect(strict.hits).toEqual([]);
  });

  it('FUZZY bounds its candidates, never below LIMIT', async () => {
    const user = newUser(server.url);
    await ingest(
      user,
      Array.from({ length: 30 }, (_, i) => ({ entity: { key: `report ${i}` } })),
    );
    const bounded = new RemService(
      { prisma: server.db.prisma, sql: server.db.sql, embedder: new HashedLexicalEmbedder() },
      { searchMinSimilarity: 0.3, fuzzyCandidates: 5, sql: sqlDefaults },
    );
    const hits = (await bounded.query(contextOf(user), 'FUZZY "report" LIMIT 20')).hits;
    expect(hits).toHaveLength(20);
    const few = (await bounded.query(contextOf(user), 'FUZZY "report" LIMIT 3')).hits;
    expect(few).toHaveLength(3);
    expect(few.every((h) => h.key.startsWith('report-') && h.score === 1)).toBe(true);
  });

  it('SEARCH ranks by cosine similarity within a table, above the minimum similarity', async () => {
    const result = await rem(alice, 'SEARCH "overdue invoices" FROM entities LIMIT 3');
    expect(result.mode).toBe('SEARCH');
    expect(result.hits.length).toBeGreaterThan(0);
    expect(result.hits.every((h) => h.entityType === 'entities')).toBe(true);
    expect(result.hits.every((h) => h.score! >= 0.3)).toBe(true);
    const scores = result.hits.map((h) => h.score!);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const all = await rem(alice, 'SEARCH "invoices overdue escalated" LIMIT 10 MIN_SIMILARITY 0.1');
    expect(all.hits[0]!.key).toBe('invoice-policy');
    const none = await rem(alice, 'SEARCH "completely unrelated zebra" MIN_SIMILARITY 0.9');
    expect(none.hits).toEqual([]);
  });

  it('TRAVERSE follows edges breadth-first with paths, filtered by type, cycle-safe and bounded', async () => {
    const result = await rem(alice, 'TRAVERSE FROM "sarah-chen" DEPTH 3');
    expect(result.mode).toBe('TRAVERSE');
    const byKey = Object.fromEntries(result.hits.map((h) => [h.key, h]));
    // sarah -> report -> sarah (cycle) is not repeated; the start node is not a hit.
    expect(Object.keys(byKey).sort()).toEqual(['budget-2026', 'finance-team', 'quarterly-report']);
    expect(byKey['quarterly-report']).toMatchObject({ depth: 1, relType: 'authored', path: ['sarah-chen', 'quarterly-report'], score: 0.8 });
    expect(byKey['budget-2026']).toMatchObject({ depth: 2, path: ['sarah-chen', 'quarterly-report', 'budget-2026'], score: 0.4 });

    const typed = await rem(alice, 'TRAVERSE TYPE "authored" FROM "Sarah Chen" DEPTH 3');
    expect(typed.hits.map((h) => h.key)).toEqual(['quarterly-report']);
    const shallow = await rem(alice, 'TRAVERSE FROM "sarah-chen" DEPTH 1');
    expect(shallow.hits.map((h) => h.key).sort()).toEqual(['finance-team', 'quarterly-report']);
    const limited = await rem(alice, 'TRAVERSE FROM "sarah-chen" DEPTH 3 LIMIT 1');
    expect(limited.hits).toHaveLength(1);
    expect((await rem(alice, 'TRAVERSE FROM "nobody"')).hits).toEqual([]);
  });

  it('SQL returns rows as JSON, capped, read-only', async () => {
    const result = await rem(alice, "SQL SELECT key, name FROM entities WHERE key LIKE 's%' ORDER BY key");
    expect(result.mode).toBe('SQL');
    expect(result.rows).toEqual([{ key: 'sarah-chen', name: 'Sarah Chen' }]);
    expect(result.truncated).toBe(false);
    const joined = await rem(
      alice,
      `SELECT e.key, count(*)::int AS edges FROM entities e CROSS JOIN LATERAL jsonb_array_elements(e.graph_edges) AS x(edge)
       GROUP BY e.key ORDER BY e.key`,
    );
    expect(joined.rows).toEqual([
      { key: 'budget-2026', edges: 1 },
      { key: 'finance-team', edges: 1 },
      { key: 'quarterly-report', edges: 2 },
      { key: 'sarah-chen', edges: 2 },
    ]);
    const kv = await rem(
      alice,
      'SQL WITH k(key, t) AS (SELECT entity_key, entity_type FROM kv_store) SELECT t, count(*)::int AS n FROM k GROUP BY t ORDER BY t',
    );
    expect(kv.rows).toEqual([
      { t: 'entities', n: 4 },
      { t: 'moments', n: 1 },
      { t: 'resources', n: 1 },
    ]);
  });

  it('SQL mode caps the rows it returns', async () => {
    const capped = serviceWith({ rowCap: 2 });
    const result = await capped.query(contextOf(alice), 'SQL SELECT key FROM entities ORDER BY key');
    expect(result.rows).toEqual([{ key: 'budget-2026' }, { key: 'finance-team' }]);
    expect(result.truncated).toBe(true);
  });

  it('LOOKUP "session-<id>-msg-<n>" returns the full stored message of a visible session', async () => {
    const session = await alice.data(CreateSessionDocument, { input: { name: 'long chat' } });
    if (session.createSession.__typename !== 'CreateSessionSuccess') throw new Error('no session');
    const sessionId = Buffer.from(session.createSession.session.id, 'base64').toString().split(':')[1]!;
    const long = `${'The full answer. '.repeat(400)}END`;
    await server.db.prisma.message.create({
      data: { sessionId, seq: 1, type: 'assistant', content: long, tenantId: 'x', userId: alice.headers['x-user-id'] },
    });
    const result = await rem(alice, `LOOKUP "${messageKey(sessionId, 1)}"`);
    expect(result.hits).toHaveLength(1);
    expect(result.hits[0]).toMatchObject({ entityType: 'messages', content: long, key: messageKey(sessionId, 1) });
    expect((await rem(alice, `LOOKUP "${messageKey(sessionId, 2)}"`)).hits).toEqual([]);
    const mallory = newUser(server.url, alice.headers['x-tenant-id']);
    expect((await rem(mallory, `LOOKUP "${messageKey(sessionId, 1)}"`)).hits).toEqual([]);
  });
});

describe('REM query errors', () => {
  it('reports syntax errors with the position and what was expected', async () => {
    const user = newUser(server.url);
    const unknown = await remError(user, 'FIND "x"');
    expect(unknown.code).toBe('QUERY_SYNTAX');
    expect(unknown.extensions).toMatchObject({ position: 0, expected: ['LOOKUP', 'FUZZY', 'SEARCH', 'TRAVERSE', 'SQL'] });
    const unterminated = await remError(user, 'LOOKUP "sarah');
    expect(unterminated).toMatchObject({ code: 'QUERY_SYNTAX', extensions: { position: 7 } });
    expect(unterminated.message).toMatch(/Unterminated string/);
    const threshold = await remError(user, 'FUZZY "x" THRESHOLD 2');
    expect(threshold.message).toMatch(/THRESHOLD must be between 0 and 1 at position 20/);
    const noFrom = await remError(user, 'TRAVERSE TYPE "rel"');
    expect(noFrom.message).toMatch(/FROM/);
    const sql = await remError(user, 'SQL SELECT key FROM entities WHERE');
    expect(sql.code).toBe('QUERY_SYNTAX');
    const table = await remError(user, 'SQL SELECT * FROM sessions');
    expect(table.code).toBe('QUERY_SYNTAX');
    expect(table.message).toMatch(/resources, entities, moments, kv_store, embeddings/);
  });

  it.each([
    ["INSERT INTO entities (key) VALUES ('x')", /only SELECT/],
    ["UPDATE entities SET key = 'x'", /only SELECT/],
    ['DELETE FROM entities', /only SELECT/],
    ['SELECT 1; DELETE FROM entities', /one statement/],
    ['WITH d AS (DELETE FROM entities RETURNING *) SELECT * FROM d', /DELETE/],
    ['DROP TABLE entities', /only SELECT/],
    ['CREATE TABLE x (a int)', /only SELECT/],
    ['COPY entities TO STDOUT', /only SELECT/],
    ['SELECT * INTO copy_of_entities FROM entities', /INTO/],
    ['SET ROLE postgres', /only SELECT/],
    ["SELECT set_config('role', 'postgres', true)", /set_config/],
    ["SELECT \"set_config\"('remgraph.user_id', 'other', true)", /set_config/],
    ["SELECT SeT_CoNfIg /* hidden */ ('remgraph.tenant_id', 't', false)", /set_config/],
    ['SELECT pg_sleep(5)', /pg_sleep/],
    ['SELECT pg_catalog.pg_sleep(5)', /pg_catalog|pg_sleep/],
    ["SELECT pg_read_file('/etc/passwd')", /pg_read_file/],
    ["SELECT * FROM dblink('dbname=postgres', 'select 1') AS t(a int)", /dblink/],
    ["SELECT query_to_xml('select * from public.entities', true, true, '')", /query_to_xml/],
    ["SELECT lo_import('/etc/passwd')", /lo_import/],
    ["SELECT current_setting('remgraph.user_id')", /current_setting/],
    ['SELECT * FROM public.entities', /public/],
    ['SELECT * FROM pg_catalog.pg_class', /pg_catalog/],
    ['SELECT * FROM information_schema.tables', /information_schema/],
    ['SELECT * FROM entities FOR UPDATE', /UPDATE/],
    ['SELECT $1', /Parameters/],
    ['SELECT generate_series(1, 100000000)', /generate_series/],
  ])('refuses %s', async (sql, message) => {
    const user = newUser(server.url);
    const error = await remError(user, `SQL ${sql}`);
    expect(['FORBIDDEN', 'QUERY_SYNTAX']).toContain(error.code);
    expect(error.message).toMatch(message);
  });

  it('refuses queries whose estimated cost is above the cap', async () => {
    const user = newUser(server.url);
    await ingest(user, graph.slice(0, 4));
    const capped = serviceWith({ maxCost: 20 });
    const expensive = 'SQL SELECT count(*) FROM entities a, entities b, entities c, kv_store d, kv_store e';
    await expect(capped.query(contextOf(user), expensive)).rejects.toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/estimated cost/) });
    expect((await capped.query(contextOf(user), 'SQL SELECT key FROM entities LIMIT 1')).rows).toHaveLength(1);
  });
});

describe('REM scoping', () => {
  const tenant = `t-${randomUUID()}`;
  let alice: Caller;
  let bob: Caller;
  let admin: Caller;
  let eve: Caller;
  beforeAll(async () => {
    alice = newUser(server.url, tenant);
    bob = newUser(server.url, tenant);
    admin = newUser(server.url, tenant, { 'x-roles': 'admin' });
    eve = newUser(server.url); // another tenant
    await ingest(alice, [
      {
        entity: {
          key: 'alice-secret',
          name: 'Alice secret',
          content: 'alice private diary about zebras',
          graphEdges: [{ dst: 'shared-handbook', relType: 'cites' }],
        },
      },
      { resource: { key: 'alice-notes', content: 'alice private notes about zebras' } },
    ]);
    await ingest(admin, [
      {
        entity: {
          key: 'shared-handbook',
          name: 'Handbook',
          content: 'company handbook about zebras',
          shared: true,
          graphEdges: [{ dst: 'alice-secret', relType: 'links' }],
        },
      },
    ]);
    await ingest(bob, [
      {
        entity: {
          key: 'bob-plan',
          content: 'bob plan about zebras',
          graphEdges: [
            { dst: 'alice-secret', relType: 'spies' },
            { dst: 'shared-handbook', relType: 'reads' },
          ],
        },
      },
    ]);
  });

  const keysOf = (r: { hits: { key: string }[] }) => r.hits.map((h) => h.key).sort();

  it('LOOKUP', async () => {
    expect(keysOf(await rem(bob, 'LOOKUP "alice-secret", "alice-notes", "shared-handbook", "bob-plan"'))).toEqual(['bob-plan', 'shared-handbook']);
    expect(keysOf(await rem(eve, 'LOOKUP "alice-secret", "shared-handbook"'))).toEqual([]);
  });

  it('FUZZY', async () => {
    expect(keysOf(await rem(bob, 'FUZZY "alice" THRESHOLD 0.1 LIMIT 50'))).not.toContain('alice-secret');
    const everyKey = 'FUZZY "plan handbook secret notes" THRESHOLD 0.1 LIMIT 50';
    expect(keysOf(await rem(bob, everyKey))).toEqual(['bob-plan', 'shared-handbook']);
    expect(keysOf(await rem(alice, everyKey))).toEqual(['alice-notes', 'alice-secret', 'shared-handbook']);
    expect(keysOf(await rem(eve, everyKey))).toEqual([]);
  });

  it('SEARCH', async () => {
    expect(keysOf(await rem(bob, 'SEARCH "private diary about zebras" LIMIT 50 MIN_SIMILARITY 0.01'))).toEqual(['bob-plan', 'shared-handbook']);
    expect(keysOf(await rem(alice, 'SEARCH "private diary about zebras" LIMIT 50 MIN_SIMILARITY 0.01'))).toEqual([
      'alice-notes',
      'alice-secret',
      'shared-handbook',
    ]);
    expect(keysOf(await rem(eve, 'SEARCH "zebras" LIMIT 50 MIN_SIMILARITY 0.01'))).toEqual([]);
  });

  it('TRAVERSE', async () => {
    // bob's edge names alice's key, and the shared handbook links to it: neither reveals it.
    expect(keysOf(await rem(bob, 'TRAVERSE FROM "bob-plan" DEPTH 3'))).toEqual(['shared-handbook']);
    expect(keysOf(await rem(bob, 'TRAVERSE FROM "alice-secret" DEPTH 3'))).toEqual([]);
    expect(keysOf(await rem(alice, 'TRAVERSE FROM "shared-handbook" DEPTH 2'))).toEqual(['alice-secret']);
    expect(keysOf(await rem(eve, 'TRAVERSE FROM "shared-handbook" DEPTH 2'))).toEqual([]);
  });

  it.each([
    'SELECT key FROM entities ORDER BY key',
    "SELECT key FROM entities WHERE user_id <> 'nobody' OR user_id IS NULL OR true ORDER BY key",
    'SELECT e.key FROM entities e JOIN kv_store k ON k.entity_id = e.id ORDER BY 1',
    'SELECT key FROM entities WHERE id IN (SELECT entity_id FROM kv_store) ORDER BY key',
    'WITH all_rows AS (SELECT * FROM entities) SELECT key FROM all_rows ORDER BY key',
    "SELECT key FROM entities UNION SELECT entity_key FROM kv_store WHERE entity_type = 'entities' ORDER BY key",
    'SELECT key FROM ENTITIES /* where user_id = me */ -- and nothing else\n ORDER BY key',
    'SELECT key FROM "entities" ORDER BY key',
    'SeLeCt key FrOm EnTiTiEs ORDER BY key',
    'SELECT key FROM (SELECT * FROM entities) AS sub ORDER BY key',
    "SELECT (SELECT string_agg(key, ',') FROM entities) AS key",
    'SELECT key FROM rem_sql_custom.entities ORDER BY key',
    "SELECT entity_key AS key FROM kv_store WHERE entity_type = 'entities' ORDER BY key",
  ])('SQL: %s', async (sql) => {
    const result = await rem(bob, `SQL ${sql}`);
    const keys = (result.rows as { key: string }[]).flatMap((r) => r.key.split(','));
    expect(keys).not.toContain('alice-secret');
    expect(keys).toEqual(expect.arrayContaining(['bob-plan']));
    for (const key of keys) expect(['bob-plan', 'shared-handbook']).toContain(key);
    const other = await rem(eve, `SQL ${sql}`);
    expect(other.rows).toEqual(expect.not.arrayContaining([expect.objectContaining({ key: 'bob-plan' })]));
  });

  it('SQL: embeddings and resources are scoped too', async () => {
    const embeddings = await rem(bob, 'SQL SELECT DISTINCT user_id FROM embeddings');
    expect((embeddings.rows as { user_id: string | null }[]).map((r) => r.user_id).sort()).toEqual([bob.headers['x-user-id'], null].sort());
    expect((await rem(bob, 'SQL SELECT count(*)::int AS n FROM resources')).rows).toEqual([{ n: 0 }]);
    expect((await rem(alice, 'SQL SELECT count(*)::int AS n FROM resources')).rows).toEqual([{ n: 1 }]);
  });

  it('the search tool runs as the agent’s caller and emits its hits as sources', async () => {
    const tool = createSearchTool(serviceWith({}));
    const events: AgentEventBody[] = [];
    const agent = contextOf(bob);
    const ctx: ToolContext = {
      agent,
      prisma: server.db.prisma,
      turnId: 't',
      sessionId: 's',
      jobId: null,
      agentName: 'general',
      emit: (e) => void events.push(e),
      signal: new AbortController().signal,
      delegate: () => Promise.reject(new Error('not used')),
    };
    const result = (await tool.handler({ query: 'SEARCH "zebras" LIMIT 10 MIN_SIMILARITY 0.01' }, ctx)) as { hits: { key: string }[] };
    expect(result.hits.map((h) => h.key).sort()).toEqual(['bob-plan', 'shared-handbook']);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'sources' });
    const sources = (events[0] as { sources: { key: string; entityType: string }[] }).sources;
    expect(sources.map((s) => s.key).sort()).toEqual(['bob-plan', 'shared-handbook']);
    const bad = (await tool.handler({ query: 'LOOKUP sarah' }, ctx)) as { error: { code: string; position: number } };
    expect(bad.error).toMatchObject({ code: 'QUERY_SYNTAX', position: 7 });
    expect(events).toHaveLength(1);
  });
});
