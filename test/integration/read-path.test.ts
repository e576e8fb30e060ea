import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeGlobalID } from '@pothos/plugin-relay';
import {
  IngestDocument,
  RemHitsWithTargetsDocument,
  SessionTurnsWithEventsDocument,
} from '../generated/graphql.js';
import { newUser } from '../support/client.js';
import { countingGraphQL } from '../support/query-count.js';
import { startTestServer, type TestServer } from '../support/server.js';

// Lists that resolve related rows read them in one batched query per field, so the number of
// database operations of a request does not grow with the number of items it returns.

let server: TestServer;
let graphql: ReturnType<typeof countingGraphQL>;

beforeAll(async () => {
  server = await startTestServer();
  graphql = countingGraphQL(server.db.prisma);
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
        data: { id: turnId, rootId: turnId, sessionId: session.id, agent: 'general', agentPath: ['general'], status: 'COMPLETED', finalMessageId: message.id, lastSeq: 3, ...owner },
      });
      await prisma.turnEvent.createMany({
        data: [1, 2, 3].map((seq) => ({ turnId: turn.id, seq, type: 'content', payload: { type: 'content', seq, turnId: turn.id, at: new Date().toISOString(), agent: 'general', depth: 0, delta: `part ${seq}` } })),
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
});
