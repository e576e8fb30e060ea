import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { IngestDocument, NodesOfSeveralTypesDocument, RemHitsWithTargetsDocument, SessionTurnsWithEventsDocument } from '../generated/graphql.js';
import { newUser, postGraphQL } from '../support/client.js';
import { countingGraphQL } from '../support/query-count.js';
import { startTestServer, type TestServer } from '../support/server.js';

// Lists that resolve related rows read them in one batched query per field, so the number of
// database operations of a request does not grow with the number of items it returns.

let server: TestServer;
let graphql: ReturnType<typeof countingGraphQL>;

beforeAll(async () => {
  server = await startTestServer();
  graphql = countingGraphQL(server.db);
});
afterAll(async () => {
  await server?.stop();
});

describe('read path batching (no N+1)', () => {
  it('session turns with their events, final messages, approvals and children', async () => {
    const alice = newUser(server.url);
    const prisma = server.db.prisma;
    const owner = { tenantId: alice.headers['x-tenant-id']!, userId: alice.headers['x-user-id']! };
    const session = await prisma.session.create({ data: { name: 'history', ...owner } });
    for (let i = 0; i < 6; i++) {
      const message = await prisma.message.create({ data: { sessionId: session.id, seq: i + 1, type: 'assistant', content: `answer ${i}`, ...owner } });
      const turnId = randomUUID();
      const turn = await prisma.turn.create({
        data: {
          id: turnId,
          rootId: turnId,
          sessionId: session.id,
          agent: 'general',
          agentPath: ['general'],
          status: 'COMPLETED',
          finalMessageId: message.id,
          lastSeq: 3,
          ...owner,
        },
      });
      await prisma.turnEventChunk.create({
        data: {
          turnId: turn.id,
          seq: 1,
          lastSeq: 3,
          events: [1, 2, 3].map((seq) => ({
            type: 'content',
            seq,
            turnId: turn.id,
            at: new Date().toISOString(),
            agent: 'general',
            depth: 0,
            delta: `part ${seq}`,
          })),
        },
      });
    }
    const id = encodeGlobalID('Session', session.id);
    const one = await graphql(alice, SessionTurnsWithEventsDocument, { id, first: 1 });
    const all = await graphql(alice, SessionTurnsWithEventsDocument, { id, first: 6 });
    const turns = all.data.session!.turns.edges.map((e) => e.node);
    expect(turns).toHaveLength(6);
    expect(turns.every((t) => t.events.length === 3 && t.events.every((e) => e.__typename === 'ContentEvent'))).toBe(true);
    expect(turns.map((t) => t.finalMessage?.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(all.queries).toBe(one.queries);
  });

  it('REM hits with their edge targets', async () => {
    const alice = newUser(server.url);
    const hub = (n: number) => ({ entity: { key: `hub ${n}`, graphEdges: Array.from({ length: 4 }, (_, j) => ({ dst: `leaf ${n} ${j}`, relType: 'has' })) } });
    const leaves = Array.from({ length: 8 }, (_, n) => Array.from({ length: 4 }, (_, j) => ({ entity: { key: `leaf ${n} ${j}` } }))).flat();
    await alice.data(IngestDocument, { items: [...Array.from({ length: 8 }, (_, n) => hub(n)), ...leaves] });
    const one = await graphql(alice, RemHitsWithTargetsDocument, { query: 'LOOKUP "hub-0"' });
    const eight = await graphql(alice, RemHitsWithTargetsDocument, { query: `LOOKUP ${Array.from({ length: 8 }, (_, n) => `"hub-${n}"`).join(', ')}` });
    expect(eight.data.remQuery.hits).toHaveLength(8);
    expect(eight.data.remQuery.hits.flatMap((h) => h.edges.map((e) => e.target?.key))).toEqual(
      Array.from({ length: 8 }, (_, n) => Array.from({ length: 4 }, (_, j) => `leaf-${n}-${j}`)).flat(),
    );
    expect(eight.queries).toBe(one.queries);
  });

  it('nodes(ids:) of several types: one query per type, unseen ids null', async () => {
    const prisma = server.db.prisma;
    const tenant = `t-${randomUUID()}`;
    const alice = newUser(server.url, tenant);
    const bob = newUser(server.url, tenant);
    const owner = (c: typeof alice) => ({ tenantId: tenant, userId: c.headers['x-user-id']! });
    const entities = await Promise.all([0, 1, 2].map((i) => prisma.entity.create({ data: { key: `node-${i}`, ...owner(alice) } })));
    const shared = await prisma.entity.create({ data: { key: 'node-shared', tenantId: tenant, userId: null } });
    const moments = await Promise.all([0, 1, 2].map((i) => prisma.moment.create({ data: { key: `moment-${i}`, ...owner(alice) } })));
    const sessions = await Promise.all([0, 1, 2].map((i) => prisma.session.create({ data: { name: `s${i}`, ...owner(alice) } })));
    const messages = await Promise.all(
      [1, 2, 3].map((seq) => prisma.message.create({ data: { sessionId: sessions[0]!.id, seq, type: 'user', content: `m${seq}`, ...owner(alice) } })),
    );
    const bobs = await prisma.entity.create({ data: { key: 'node-private', ...owner(bob) } });
    const bobSession = await prisma.session.create({ data: { name: 'bob', ...owner(bob) } });
    const otherTenant = await prisma.entity.create({ data: { key: 'node-elsewhere', tenantId: `t-${randomUUID()}`, userId: owner(alice).userId } });
    const gid = (type: string, row: { id: string }) => encodeGlobalID(type, row.id);

    const one = await graphql(alice, NodesOfSeveralTypesDocument, {
      ids: [gid('Entity', entities[0]!), gid('Moment', moments[0]!), gid('Session', sessions[0]!), gid('Message', messages[0]!)],
    });
    const ids = [
      ...entities.map((e) => gid('Entity', e)),
      gid('Entity', bobs),
      gid('Session', bobSession),
      ...moments.map((m) => gid('Moment', m)),
      gid('Entity', otherTenant),
      ...sessions.map((s) => gid('Session', s)),
      gid('Entity', shared),
      ...messages.map((m) => gid('Message', m)),
      gid('Entity', { id: randomUUID() }),
    ];
    const all = await graphql(alice, NodesOfSeveralTypesDocument, { ids });
    const shown = all.data.nodes.map((n) => n && ('key' in n ? n.key : 'name' in n ? n.name : 'seq' in n ? n.seq : null));
    expect(shown).toEqual(['node-0', 'node-1', 'node-2', null, null, 'moment-0', 'moment-1', 'moment-2', null, 's0', 's1', 's2', 'node-shared', 1, 2, 3, null]);
    expect(all.data.nodes.map((n) => n?.id ?? null)).toEqual(ids.map((id, i) => (shown[i] === null ? null : id)));
    expect(one.queries).toBe(4);
    expect(all.queries).toBe(one.queries);
    const single = await postGraphQL(server.url, { query: 'query($id: ID!) { node(id: $id) { id } }', variables: { id: gid('Entity', bobs) } }, alice.headers);
    expect(single.body).toEqual({ data: { node: null } });
  });
});
