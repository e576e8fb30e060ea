import { randomUUID } from 'node:crypto';
import { print } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { IngestDocument, IngestFileDocument, RemQueryDocument, type IngestFileMutation, type MemoryItemInput } from '../generated/graphql.js';
import { chat, registerAgent, shape, useAgentServer } from '../support/agents.js';
import { loadConfig } from '../../src/config/config.js';
import { HashedLexicalEmbedder } from '../../src/rem/embeddings/hashed-lexical.js';
import { RemService } from '../../src/rem/service.js';
import { contextOf, errorCode, newUser, type Caller } from '../support/client.js';
import { pdfOf } from '../support/pdf.js';

const env = useAgentServer();

async function ingest(user: Caller, items: MemoryItemInput[]) {
  const data = await user.data(IngestDocument, { items });
  if (data.ingest.__typename !== 'IngestSuccess') throw new Error(JSON.stringify(data.ingest));
}

async function rem(user: Caller, query: string) {
  return (await user.data(RemQueryDocument, { query })).remQuery;
}

async function remError(user: Caller, query: string) {
  const res = await user.request(RemQueryDocument, { query });
  expect(res.body.data).toBeNull();
  return { code: errorCode(res), message: res.body.errors![0]!.message, position: res.body.errors![0]!.extensions?.position };
}

/** The file as a browser uploads it (GraphQL multipart request). */
async function uploadFile(user: Caller, name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: print(IngestFileDocument), variables: { file: null } }));
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([Buffer.from(bytes)], { type: 'application/pdf' }), name);
  const res = await fetch(env.server.url, { method: 'POST', headers: { ...user.headers, 'x-graphql-yoga-csrf': '1' }, body: form });
  const body = (await res.json()) as { data?: IngestFileMutation; errors?: unknown[] };
  expect(body.errors).toBeUndefined();
  expect(body.data!.ingestFile).toMatchObject({ __typename: 'IngestFileSuccess' });
}

const everything = (where: string, text = 'invoice zebras') => `SEARCH "${text}" WHERE ${where} LIMIT 50 MIN_SIMILARITY 0.01`;
const keysOf = (r: { hits: { key: string }[] }) => r.hits.map((h) => h.key).sort();

const FILTERS: [string, string[]][] = [
  [`tags CONTAINS 'travel'`, ['travel-policy']],
  [`tags CONTAINS ANY ('travel', 'policy')`, ['invoice-policy', 'travel-policy']],
  [`tags CONTAINS ALL ('finance', 'policy')`, ['invoice-policy']],
  [`tags CONTAINS 'finance' AND tags CONTAINS ANY ('policy', 'nothing')`, ['invoice-policy']],
  [`tags CONTAINS 'no-such-tag'`, []],
  [`type = 'policy'`, ['invoice-policy', 'shared-invoice-rules', 'travel-policy']],
  [`category = 'scan'`, ['invoice-scan']],
  [`type = 'meeting'`, ['invoice-meeting']],
  [`metadata.region = 'eu'`, ['invoice-policy', 'shared-invoice-rules', 'travel-policy']],
  [`metadata.region = 'eu' AND metadata.level = 2`, ['invoice-policy']],
  [`metadata.level = '2'`, []],
  [`metadata.active = TRUE`, ['invoice-policy']],
  [`metadata.active = false`, []],
  [`created_at < '2026-01-01'`, ['invoice-howto', 'invoice-policy']],
  [`created_at >= '2026-01-15T10:00:00Z' AND created_at <= '2026-01-15T10:00:00Z'`, ['travel-policy']],
  [`created_at > '2026-01-15T10:00:00Z' AND created_at < '2026-01-16'`, []],
  [`updated_at > '2026-01-20' AND updated_at < '2026-06-01'`, ['invoice-policy']],
  [`type = 'policy' AND metadata.region = 'eu' AND tags CONTAINS 'finance' AND created_at < '2026-06-01'`, ['invoice-policy']],
];

describe('SEARCH ... WHERE', () => {
  const tenant = `t-${randomUUID()}`;
  let alice: Caller;
  let bob: Caller;
  let eve: Caller;

  beforeAll(async () => {
    alice = newUser(env.server.url, tenant);
    bob = newUser(env.server.url, tenant);
    eve = newUser(env.server.url);
    const admin = newUser(env.server.url, tenant, { 'x-roles': 'admin' });
    await ingest(alice, [
      {
        entity: {
          key: 'invoice-policy',
          entityType: 'policy',
          tags: ['finance', 'policy'],
          metadata: { region: 'eu', level: 2, active: true },
          content: 'invoice approval policy about zebras',
        },
      },
      {
        entity: {
          key: 'invoice-howto',
          entityType: 'guide',
          tags: ['finance'],
          metadata: { region: 'us', level: 1 },
          content: 'how to pay an invoice for zebras',
        },
      },
      { entity: { key: 'travel-policy', entityType: 'policy', tags: ['travel'], metadata: { region: 'eu' }, content: 'travel rules for zebras' } },
      { resource: { key: 'invoice-scan', category: 'scan', tags: ['finance'], content: 'scanned invoice about zebras' } },
      { moment: { key: 'invoice-meeting', momentType: 'meeting', tags: ['finance'], content: 'meeting about the invoice for zebras' } },
    ]);
    await ingest(admin, [
      {
        entity: {
          key: 'shared-invoice-rules',
          entityType: 'policy',
          tags: ['finance'],
          metadata: { region: 'eu' },
          shared: true,
          content: 'shared invoice rules on zebras',
        },
      },
    ]);
    const private_ = {
      key: 'own-invoice-policy',
      entityType: 'policy',
      tags: ['finance', 'travel'],
      metadata: { region: 'eu' },
      content: 'own invoice policy about zebras',
    };
    await ingest(bob, [{ entity: private_ }]);
    await ingest(eve, [{ entity: private_ }]);
    // Fixed dates, so that time bounds select known rows.
    const dated = async (key: string, created: string, updated: string) =>
      env.server.db.prisma.$executeRawUnsafe(
        `UPDATE "entities" SET "created_at" = $1::timestamptz, "updated_at" = $2::timestamptz WHERE "tenant_id" = $3 AND "key" = $4`,
        created,
        updated,
        tenant,
        key,
      );
    await dated('invoice-policy', '2025-03-01T00:00:00Z', '2026-02-01T00:00:00Z');
    await dated('invoice-howto', '2025-09-01T00:00:00Z', '2025-09-01T00:00:00Z');
    await dated('travel-policy', '2026-01-15T10:00:00Z', '2026-01-15T10:00:00Z');
  });

  it('without WHERE, every visible row matches', async () => {
    expect(keysOf(await rem(alice, 'SEARCH "invoice zebras" LIMIT 50 MIN_SIMILARITY 0.01'))).toEqual([
      'invoice-howto',
      'invoice-meeting',
      'invoice-policy',
      'invoice-scan',
      'shared-invoice-rules',
      'travel-policy',
    ]);
  });

  it.each(FILTERS)('WHERE %s', async (where, keys) => {
    expect(keysOf(await rem(alice, everything(where)))).toEqual(keys);
  });

  it('testing each vector’s row (many rows pass) finds the same rows as joining the passing rows to their vectors', async () => {
    const walking = new RemService(
      { prisma: env.server.db.prisma, sql: env.server.db.sql, embedder: new HashedLexicalEmbedder() },
      { searchMinSimilarity: 0.3, fuzzyCandidates: 200, sql: loadConfig({}).rem.sql, searchExactRows: 1 },
    );
    for (const [where, keys] of FILTERS) {
      expect(keysOf(await walking.query(contextOf(alice), everything(where))), where).toEqual(keys);
    }
    const nearest = await walking.query(contextOf(alice), `SEARCH "invoice approval policy zebras" WHERE tags CONTAINS 'travel' LIMIT 1 MIN_SIMILARITY 0.01`);
    expect(keysOf(nearest)).toEqual(['travel-policy']);
  });

  it('FROM and WHERE together; a filter on another table’s type finds nothing there', async () => {
    expect(keysOf(await rem(alice, `SEARCH "invoice zebras" FROM resources WHERE category = 'scan' LIMIT 50 MIN_SIMILARITY 0.01`))).toEqual(['invoice-scan']);
    expect(keysOf(await rem(alice, `SEARCH "invoice zebras" FROM entities WHERE category = 'scan' LIMIT 50 MIN_SIMILARITY 0.01`))).toEqual([]);
  });

  it('filters before LIMIT: the nearest rows that pass, not the passing ones among the nearest', async () => {
    const nearest = await rem(alice, 'SEARCH "invoice approval policy zebras" LIMIT 1 MIN_SIMILARITY 0.01');
    expect(keysOf(nearest)).toEqual(['invoice-policy']);
    const filtered = await rem(alice, `SEARCH "invoice approval policy zebras" WHERE tags CONTAINS 'travel' LIMIT 1 MIN_SIMILARITY 0.01`);
    expect(filtered.hits).toMatchObject([{ key: 'travel-policy', entityType: 'entities', page: null }]);
    expect(filtered.hits[0]!.score).toBeLessThan(nearest.hits[0]!.score!);
  });

  it('stays within the caller’s rows and the tenant’s shared ones', async () => {
    expect(keysOf(await rem(bob, everything(`type = 'policy' AND metadata.region = 'eu'`)))).toEqual(['own-invoice-policy', 'shared-invoice-rules']);
    expect(keysOf(await rem(bob, everything(`tags CONTAINS 'travel'`)))).toEqual(['own-invoice-policy']);
    expect(keysOf(await rem(eve, everything(`type = 'policy'`)))).toEqual(['own-invoice-policy']);
    expect(keysOf(await rem(eve, everything(`metadata.region = 'eu' AND tags CONTAINS 'finance'`)))).toEqual(['own-invoice-policy']);
  });

  it('values are data, never SQL', async () => {
    expect(keysOf(await rem(alice, everything(`metadata.region = 'eu\\' OR true --'`)))).toEqual([]);
    expect(keysOf(await rem(alice, everything(`metadata."region') OR true --" = 'eu'`)))).toEqual([]);
    expect(keysOf(await rem(alice, everything(`tags CONTAINS ANY ('x"}]\\' OR 1=1', '\\\\')`)))).toEqual([]);
    expect(keysOf(await rem(alice, everything(`type = 'policy\\'); DROP TABLE entities; --'`)))).toEqual([]);
    expect(keysOf(await rem(alice, everything(`type = 'policy'`)))).toHaveLength(3);
  });

  it.each([
    [`colour = 'red'`, 'Unknown filter field "colour" at position 30; expected tags, type, category, metadata.<key>, created_at or updated_at', 0],
    [`created_at > 'last tuesday'`, /^Invalid date string 'last tuesday' at position 43; expected a date such as/, 13],
    [`created_at > '2026-02-30'`, /^Invalid date string '2026-02-30'/, 13],
    [`created_at > 5`, 'Expected a quoted date after created_at at position 43, found number 5', 13],
    [`type = 5`, 'Expected a quoted string after type at position 37, found number 5', 7],
    [`tags = 'x'`, 'Expected CONTAINS after tags at position 35, found "="', 5],
    [`metadata.level > 1`, 'Expected "=" after metadata.level at position 45, found ">"', 15],
  ])('a bad filter is a QUERY_SYNTAX error: %s', async (where, message, position) => {
    const error = await remError(alice, everything(where));
    expect(error.code).toBe('QUERY_SYNTAX');
    expect(error.message).toMatch(message);
    expect(error.position).toBe('SEARCH "invoice zebras" WHERE '.length + position);
  });
});

describe('PDF chunks carry their page', () => {
  it('into SEARCH hits, and into the sources of a turn that searched', async () => {
    const user = newUser(env.server.url);
    const pages = ['Quarterly revenue grew by ten percent', 'Headcount stayed at forty people', 'Offices moved to Lisbon in spring'];
    await uploadFile(user, 'report.pdf', pdfOf(pages));
    await ingest(user, [{ resource: { key: 'headcount-notes', content: 'Notes on headcount: forty people' } }]);

    const page2 = await rem(user, `SEARCH "headcount forty people" FROM resources WHERE metadata.page = 2 LIMIT 5 MIN_SIMILARITY 0.01`);
    expect(page2.hits).toMatchObject([{ key: 'report-chunk-2', page: 2 }]);
    const all = await rem(user, 'SEARCH "headcount forty people" FROM resources LIMIT 10 MIN_SIMILARITY 0.01');
    expect(Object.fromEntries(all.hits.map((h) => [h.key, h.page]))).toMatchObject({ 'report-chunk-2': 2, 'headcount-notes': null });
    const chunks = await rem(user, `SEARCH "report" WHERE category = 'file_chunk' AND metadata.parent = 'report' LIMIT 10 MIN_SIMILARITY 0`);
    expect(chunks.hits.map((h) => [h.key, h.page]).sort()).toEqual([
      ['report-chunk-1', 1],
      ['report-chunk-2', 2],
      ['report-chunk-3', 3],
    ]);

    await registerAgent(user, 'name: reader\ndescription: You read reports.\ntools:\n  - name: search\n');
    const search = `SEARCH "headcount forty people" FROM resources WHERE category = 'file_chunk' AND metadata.parent = 'report' LIMIT 1`;
    env.fake.enqueue({ toolCalls: [{ id: 's1', name: 'search', arguments: { query: search } }] }, { text: 'Forty people (page 2).' });
    const { events, turn } = await chat(env.server.url, user, { content: 'What was the headcount?', agent: 'reader' });
    expect(shape(events)).toEqual(['tool_call', 'sources', 'tool_result', 'content*', 'final']);
    expect(events[1]).toMatchObject({ __typename: 'SourcesEvent', sources: [{ key: 'report-chunk-2', entityType: 'resources', page: 2 }] });
    expect(turn.toolCallsLog).toMatchObject([{ tool: 'search', isError: false, result: { mode: 'SEARCH', hits: [{ key: 'report-chunk-2', page: 2 }] } }]);
    const model = env.fake.chatRequests[1]!.body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(JSON.parse(model.content)).toMatchObject({ hits: [{ key: 'report-chunk-2', page: 2 }] });
  });
});
