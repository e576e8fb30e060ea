import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { HashedLexicalEmbedder } from '../../src/rem/embeddings/hashed-lexical.js';
import { OpenAIEmbedder } from '../../src/rem/embeddings/openai.js';
import { ingest } from '../../src/rem/memory/ingest.js';
import { reembed } from '../../src/rem/memory/reembed.js';
import { RemService } from '../../src/rem/service.js';
import {
  DeleteEntityDocument,
  EntitiesDocument,
  EntitiesWithTargetsDocument,
  EntityByKeyDocument,
  IngestDocument,
  MomentsDocument,
  ReembedDocument,
  RemQueryDocument,
  ResourcesDocument,
  UpsertEntityDocument,
  UpsertMomentDocument,
  UpsertResourceDocument,
  type EntityInput,
  type MemoryItemInput,
} from '../generated/graphql.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { contextOf, newUser, type Caller } from '../support/client.js';
import { countingGraphQL } from '../support/query-count.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

async function upsert(user: Caller, input: EntityInput) {
  const data = await user.data(UpsertEntityDocument, { input });
  return data.upsertEntity;
}

async function lookup(user: Caller, key: string) {
  return (await user.data(RemQueryDocument, { query: `LOOKUP "${key}"` })).remQuery.hits;
}

describe('memory upserts', () => {
  it('normalises keys, returns the normalised key, and updates in place keeping omitted fields', async () => {
    const alice = newUser(server.url);
    const created = await upsert(alice, {
      key: '  Sarah Chen!! ',
      name: 'Sarah Chen',
      entityType: 'person',
      content: 'ML engineer',
      uri: 'git://people/sarah',
      extractedData: { team: 'ml' },
      tags: ['people', 'ml'],
      graphEdges: [{ dst: 'Quarterly Report', relType: 'authored', weight: 0.7, properties: { year: 2026 } }],
    });
    expect(created).toMatchObject({
      __typename: 'UpsertEntitySuccess',
      entity: {
        key: 'sarah-chen',
        shared: false,
        extractedData: { team: 'ml' },
        graphEdges: [{ dst: 'quarterly-report', relType: 'authored', weight: 0.7, properties: { year: 2026 } }],
      },
    });
    const updated = await upsert(alice, { key: 'sarah chen', content: 'Staff ML engineer', tags: null });
    expect(updated).toMatchObject({
      entity: { key: 'sarah-chen', name: 'Sarah Chen', content: 'Staff ML engineer', tags: [], uri: 'git://people/sarah' },
    });
    if (created.__typename !== 'UpsertEntitySuccess' || updated.__typename !== 'UpsertEntitySuccess') throw new Error();
    expect(updated.entity.id).toBe(created.entity.id);
    expect((await alice.data(EntityByKeyDocument, { key: 'Sarah CHEN' })).entity?.content).toBe('Staff ML engineer');
    expect((await lookup(alice, 'sarah-chen'))[0]).toMatchObject({ content: 'Staff ML engineer' });
  });

  it('validates input with field paths', async () => {
    const alice = newUser(server.url);
    const bad = await upsert(alice, { key: '!!!', graphEdges: [{ dst: 'x', relType: ' ' }] });
    expect(bad).toMatchObject({ __typename: 'ValidationError', code: 'VALIDATION_FAILED' });
    if (bad.__typename !== 'ValidationError') throw new Error();
    expect(bad.issues.map((i) => i.path.join('.'))).toEqual(expect.arrayContaining(['input.key', 'input.graphEdges.0.relType']));
  });

  it('writes shared rows only for admins; shared rows are visible tenant-wide, not across tenants', async () => {
    const tenant = `t-${randomUUID()}`;
    const alice = newUser(server.url, tenant);
    const admin = newUser(server.url, tenant, { 'x-roles': 'admin' });
    const refused = await upsert(alice, { key: 'handbook', content: 'x', shared: true });
    expect(refused).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await upsert(admin, { key: 'handbook', content: 'Company handbook', shared: true })).toMatchObject({ entity: { shared: true } });
    expect((await alice.data(EntityByKeyDocument, { key: 'handbook' })).entity).toMatchObject({ shared: true, content: 'Company handbook' });
    // alice's own row with the same key wins over the shared one for her.
    await upsert(alice, { key: 'handbook', content: 'My notes on the handbook' });
    expect((await alice.data(EntityByKeyDocument, { key: 'handbook' })).entity).toMatchObject({ shared: false, content: 'My notes on the handbook' });
    expect((await newUser(server.url).data(EntityByKeyDocument, { key: 'handbook' })).entity).toBeNull();
    expect(await alice.data(DeleteEntityDocument, { key: 'handbook', shared: true })).toMatchObject({ deleteEntity: { code: 'FORBIDDEN' } });
    expect(await admin.data(DeleteEntityDocument, { key: 'handbook', shared: true })).toMatchObject({ deleteEntity: { entity: { key: 'handbook' } } });
  });

  it('upserts resources and moments', async () => {
    const alice = newUser(server.url);
    const resource = await alice.data(UpsertResourceDocument, { input: { key: 'Invoice Policy', content: 'Pay within 30 days', category: 'policy' } });
    expect(resource.upsertResource).toMatchObject({ resource: { key: 'invoice-policy', category: 'policy' } });
    const moment = await alice.data(UpsertMomentDocument, {
      input: { key: 'Q3 review', momentType: 'meeting', startsAt: '2026-09-30T09:00:00.000Z', endsAt: '2026-09-30T10:00:00.000Z' },
    });
    expect(moment.upsertMoment).toMatchObject({ moment: { key: 'q3-review', momentType: 'meeting', startsAt: '2026-09-30T09:00:00.000Z' } });
    const backwards = await alice.data(UpsertMomentDocument, {
      input: { key: 'oops', startsAt: '2026-09-30T10:00:00.000Z', endsAt: '2026-09-30T09:00:00.000Z' },
    });
    expect(backwards.upsertMoment).toMatchObject({ __typename: 'ValidationError', message: expect.stringContaining('endsAt') });
    expect((await alice.data(ResourcesDocument, { first: 10, filter: { type: 'policy' } })).resources.totalCount).toBe(1);
    expect((await alice.data(MomentsDocument, { first: 10, filter: { type: 'meeting' } })).moments.edges.map((e) => e.node.key)).toEqual(['q3-review']);
  });
});

describe('ingest', () => {
  const items = (n: number): MemoryItemInput[] =>
    Array.from({ length: n }, (_, i) => ({ entity: { key: `item ${i}`, content: `content of item ${i}`, tags: i % 2 ? ['odd'] : ['even'] } }));

  it('writes a batch of entities, resources and moments', async () => {
    const alice = newUser(server.url);
    const data = await alice.data(IngestDocument, {
      items: [...items(3), { resource: { key: 'doc', content: 'a doc' } }, { moment: { key: 'standup', summary: 'daily standup' } }],
    });
    expect(data.ingest).toMatchObject({
      __typename: 'IngestSuccess',
      count: 5,
      entities: [{ key: 'item-0' }, { key: 'item-1' }, { key: 'item-2' }],
      resources: [{ key: 'doc' }],
      moments: [{ key: 'standup' }],
    });
  });

  it('is all-or-nothing: an invalid item writes nothing and names the item', async () => {
    const alice = newUser(server.url);
    const bad = [...items(3), { entity: { key: '---' } }, { entity: { key: 'x' }, resource: { key: 'y' } }];
    const data = await alice.data(IngestDocument, { items: bad });
    expect(data.ingest).toMatchObject({ __typename: 'ValidationError' });
    if (data.ingest.__typename !== 'ValidationError') throw new Error();
    expect(data.ingest.issues[0]!.path).toEqual(['items', '3', 'entity', 'key']);
    const dup = await alice.data(IngestDocument, { items: [...items(2), { entity: { key: 'Item 0' } }] });
    expect(dup.ingest).toMatchObject({ __typename: 'ValidationError', message: expect.stringContaining('items.0') });
    expect((await alice.data(EntitiesDocument, { first: 10 })).entities.totalCount).toBe(0);
  });

  it('is all-or-nothing when the embedding provider fails after the rows were written', async () => {
    const fake: FakeOpenAI = await startFakeOpenAI();
    try {
      const alice = newUser(server.url);
      const ctx = contextOf(alice);
      const embedder = new OpenAIEmbedder({ baseUrl: fake.url, apiKey: 'test', model: 'text-embedding-3-small', dimension: 1536 });
      const deps = { prisma: server.db.prisma, sql: server.db.sql, embedder };
      const batch = Array.from({ length: 4 }, (_, i) => ({ entity: { key: `item ${i}`, content: `content of item ${i}` } }));
      fake.failNext('/v1/embeddings', { status: 400, error: { message: 'input too long' } });
      await expect(ingest(deps, ctx, batch)).rejects.toMatchObject({ code: 'MODEL_ERROR' });
      expect((await alice.data(EntitiesDocument, { first: 10 })).entities.totalCount).toBe(0);
      expect(await lookup(alice, 'item-0')).toEqual([]);

      const ok = await ingest(deps, ctx, batch);
      expect(ok.entities).toHaveLength(4);
      const request = fake.requests.filter((r) => r.path === '/v1/embeddings').at(-1)!;
      expect(request.body).toMatchObject({ model: 'text-embedding-3-small', dimensions: 1536, input: expect.arrayContaining(['content of item 0']) });
      const rem = new RemService(deps, loadConfig({}).rem);
      expect((await rem.query(ctx, 'SEARCH "content of item 2" LIMIT 1')).hits.map((h) => h.key)).toEqual(['item-2']);
      const stored = await server.db.prisma.embedding.findMany({ where: { userId: ctx.userId }, select: { model: true, dimension: true } });
      expect(stored).toHaveLength(4);
      expect(stored.every((e) => e.model === 'text-embedding-3-small' && e.dimension === 1536)).toBe(true);
    } finally {
      await fake.close();
    }
  });
});

describe('connections', () => {
  it('pages entities newest first with tag, type and text filters', async () => {
    const alice = newUser(server.url);
    await alice.data(IngestDocument, {
      items: [
        { entity: { key: 'alpha', name: 'Alpha', entityType: 'project', tags: ['work'] } },
        { entity: { key: 'beta', name: 'Beta', entityType: 'person', tags: ['home'] } },
        { entity: { key: 'gamma', name: 'Gamma ray', entityType: 'project', tags: ['work', 'science'] } },
      ],
    });
    const page1 = await alice.data(EntitiesDocument, { first: 2 });
    expect(page1.entities.totalCount).toBe(3);
    expect(page1.entities.pageInfo.hasNextPage).toBe(true);
    const page2 = await alice.data(EntitiesDocument, { first: 2, after: page1.entities.pageInfo.endCursor });
    expect([...page1.entities.edges, ...page2.entities.edges].map((e) => e.node.key).sort()).toEqual(['alpha', 'beta', 'gamma']);
    const filtered = async (filter: object) => (await alice.data(EntitiesDocument, { first: 10, filter })).entities.edges.map((e) => e.node.key).sort();
    expect(await filtered({ tags: ['work'] })).toEqual(['alpha', 'gamma']);
    expect(await filtered({ type: 'person' })).toEqual(['beta']);
    expect(await filtered({ text: 'RAY' })).toEqual(['gamma']);
    expect(await filtered({ tags: ['science'], type: 'project' })).toEqual(['gamma']);
    expect((await newUser(server.url).data(EntitiesDocument, { first: 10 })).entities.totalCount).toBe(0);
  });

  it('resolves edge targets in one batched query, whatever the page size (no N+1)', async () => {
    const alice = newUser(server.url);
    const graphql = countingGraphQL(server.db);
    const n = 12;
    await alice.data(IngestDocument, {
      items: Array.from({ length: n }, (_, i) => ({
        entity: {
          key: `node ${i}`,
          name: `Node ${i}`,
          graphEdges: [
            { dst: `node ${(i + 1) % n}`, relType: 'next' },
            { dst: `node ${(i + 2) % n}`, relType: 'skip' },
            { dst: 'missing-target', relType: 'dangling' },
          ],
        },
      })),
    });
    const run = (first: number) => graphql(alice, EntitiesWithTargetsDocument, { first });
    const small = await run(2);
    const large = await run(n);
    expect(large.data.entities.edges).toHaveLength(n);
    for (const { node } of large.data.entities.edges) {
      for (const edge of node.graphEdges) {
        expect(edge.target?.key ?? null).toBe(edge.dst === 'missing-target' ? null : edge.dst);
      }
    }
    expect(large.queries).toBe(small.queries);
    expect(large.queries).toBeLessThanOrEqual(2);
  });
});

describe('kv_store and embeddings follow the tables (database triggers)', () => {
  it('keeps LOOKUP right after updates and deletes made outside the API', async () => {
    const alice = newUser(server.url);
    await upsert(alice, { key: 'old-key', summary: 'old summary', content: 'old content' });
    const prisma = server.db.prisma;
    const userId = alice.headers['x-user-id']!;
    const id = (await prisma.entity.findFirstOrThrow({ where: { key: 'old-key', userId } })).id;

    await prisma.$executeRaw`UPDATE entities SET key = 'new-key', summary = 'new summary', graph_edges = '[{"dst":"x","rel_type":"r","weight":1}]' WHERE id = ${id}::uuid`;
    expect(await lookup(alice, 'old-key')).toEqual([]);
    expect((await lookup(alice, 'new-key'))[0]).toMatchObject({ summary: 'new summary', edges: [{ dst: 'x', relType: 'r' }] });
    const kv = await prisma.kvStore.findMany({ where: { entityId: id } });
    expect(kv).toMatchObject([{ entityKey: 'new-key', contentSummary: 'new summary', entityType: 'entities' }]);
    expect(await prisma.embedding.count({ where: { entityId: id } })).toBe(1);

    await prisma.$executeRaw`DELETE FROM entities WHERE id = ${id}::uuid`;
    expect(await lookup(alice, 'new-key')).toEqual([]);
    expect(await prisma.kvStore.count({ where: { entityId: id } })).toBe(0);
    expect(await prisma.embedding.count({ where: { entityId: id } })).toBe(0);
  });

  it('deleteEntity removes the row, its kv entry and its vectors; another user gets NOT_FOUND', async () => {
    const alice = newUser(server.url);
    await upsert(alice, { key: 'temp', content: 'temporary' });
    const bob = newUser(server.url, alice.headers['x-tenant-id']);
    expect((await bob.data(DeleteEntityDocument, { key: 'temp' })).deleteEntity).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    expect((await alice.data(DeleteEntityDocument, { key: 'Temp' })).deleteEntity).toMatchObject({ entity: { key: 'temp' } });
    expect(await lookup(alice, 'temp')).toEqual([]);
    expect(await server.db.prisma.embedding.count({ where: { userId: alice.headers['x-user-id'] } })).toBe(0);
  });

  it('re-embeds only when the embedded text changes', async () => {
    const alice = newUser(server.url);
    await upsert(alice, { key: 'stable', content: 'same text' });
    const before = await server.db.prisma.embedding.findFirstOrThrow({ where: { userId: alice.headers['x-user-id'] } });
    await upsert(alice, { key: 'stable', tags: ['tagged'] });
    const same = await server.db.prisma.embedding.findFirstOrThrow({ where: { userId: alice.headers['x-user-id'] } });
    expect(same.createdAt).toEqual(before.createdAt);
    await upsert(alice, { key: 'stable', content: 'different text' });
    const changed = await server.db.prisma.embedding.findFirstOrThrow({ where: { userId: alice.headers['x-user-id'] } });
    expect(changed.contentHash).not.toBe(before.contentHash);
  });
});

describe('changing the embedding model', () => {
  it('never mixes models in a search, and re-embedding fills in the new model on demand', async () => {
    const alice = newUser(server.url);
    await alice.data(IngestDocument, {
      items: [{ entity: { key: 'zebra-facts', content: 'zebras have stripes' } }, { entity: { key: 'lion-facts', content: 'lions have manes' } }],
    });
    const ctx = contextOf(alice);
    const v2 = { prisma: server.db.prisma, sql: server.db.sql, embedder: new HashedLexicalEmbedder(256, 'hashed-lexical-v2') };
    const rem = new RemService(v2, loadConfig({}).rem);
    const search = async () => (await rem.query(ctx, 'SEARCH "zebras stripes" LIMIT 5')).hits.map((h) => h.key);
    expect(await search()).toEqual([]);
    expect(await reembed(v2, ctx)).toEqual({ model: 'hashed-lexical-v2', dimension: 256, embedded: 2 });
    expect(await search()).toEqual(['zebra-facts']);
    expect(await reembed(v2, ctx)).toMatchObject({ embedded: 0 });
    const models = await server.db.prisma.embedding.groupBy({ by: ['model', 'dimension'], where: { userId: ctx.userId }, _count: true });
    expect(models.map((m) => [m.model, m.dimension, m._count]).sort()).toEqual([
      ['hashed-lexical-v1', 384, 2],
      ['hashed-lexical-v2', 256, 2],
    ]);
  });

  it('the reembed mutation embeds rows written without vectors (e.g. by SQL)', async () => {
    const alice = newUser(server.url);
    const userId = alice.headers['x-user-id']!;
    await server.db.prisma.$executeRaw`INSERT INTO entities (key, content, tenant_id, user_id)
      VALUES ('raw-row', 'written by a migration script about walruses', ${alice.headers['x-tenant-id']}, ${userId})`;
    const search = async () => (await alice.data(RemQueryDocument, { query: 'SEARCH "walruses migration" LIMIT 5' })).remQuery.hits.map((h) => h.key);
    expect(await search()).toEqual([]);
    expect((await alice.data(ReembedDocument, {})).reembed).toEqual({ __typename: 'ReembedSuccess', model: 'hashed-lexical-v1', dimension: 384, embedded: 1 });
    expect(await search()).toEqual(['raw-row']);
    expect((await alice.data(ReembedDocument, {})).reembed).toMatchObject({ embedded: 0 });
  });
});
