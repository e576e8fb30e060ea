import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, collect, contextOf, errorCode, newUser, wsClient } from '../support/client.js';
import { getSession } from '../../src/sessions/sessions.js';
import { columnOf, MESSAGE_COLUMNS } from '../../src/sessions/rows.js';
import { TURN_COLUMNS } from '../../src/turns/turn-columns.js';
import { Prisma } from '../../src/db/generated/client.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  CreateSessionDocument,
  DeleteSessionDocument,
  NodeDocument,
  RenameSessionDocument,
  SessionDocument,
  SessionsDocument,
  SessionUpdatedDocument,
  ViewerDocument,
} from '../generated/graphql.js';
import { decodeGlobalID } from '@pothos/plugin-relay';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

async function createSession(user: ReturnType<typeof newUser>, name: string) {
  const data = await user.data(CreateSessionDocument, { input: { name } });
  if (data.createSession.__typename !== 'CreateSessionSuccess') throw new Error(JSON.stringify(data));
  return data.createSession.session;
}

describe('sessions', () => {
  it('creates, reads, renames and deletes a session', async () => {
    const alice = newUser(server.url);
    const created = await createSession(alice, '  Trip planning  ');
    expect(created.name).toBe('Trip planning');
    expect(decodeGlobalID(created.id).typename).toBe('Session');

    const read = await alice.data(SessionDocument, { id: created.id });
    expect(read.session).toMatchObject({ id: created.id, name: 'Trip planning', metadata: {} });
    expect(read.session?.messages.totalCount).toBe(0);

    const renamed = await alice.data(RenameSessionDocument, { id: created.id, name: 'Trip to Lisbon' });
    expect(renamed.renameSession).toMatchObject({ __typename: 'RenameSessionSuccess', session: { name: 'Trip to Lisbon' } });

    const deleted = await alice.data(DeleteSessionDocument, { id: created.id });
    expect(deleted.deleteSession).toMatchObject({ __typename: 'DeleteSessionSuccess', session: { id: created.id } });

    const after = await alice.request(SessionDocument, { id: created.id });
    expect(after.body.data?.session).toBeNull();
    expect(errorCode(after)).toBe('NOT_FOUND');
  });

  it('stores metadata and agent given at creation', async () => {
    const alice = newUser(server.url);
    const data = await alice.data(CreateSessionDocument, {
      input: { name: 'with meta', agent: 'general', metadata: { source: 'test', n: 1 } },
    });
    expect(data.createSession).toMatchObject({ session: { agent: 'general', metadata: { source: 'test', n: 1 } } });
  });

  it('pages through sessions newest first, with a filter', async () => {
    const alice = newUser(server.url);
    for (const name of ['alpha one', 'beta two', 'alpha three', 'gamma four', 'alpha five']) {
      await createSession(alice, name);
    }
    const page1 = await alice.data(SessionsDocument, { first: 2 });
    expect(page1.sessions.totalCount).toBe(5);
    expect(page1.sessions.edges.map((e) => e.node.name)).toEqual(['alpha five', 'gamma four']);
    expect(page1.sessions.pageInfo.hasNextPage).toBe(true);
    const page2 = await alice.data(SessionsDocument, { first: 2, after: page1.sessions.pageInfo.endCursor });
    expect(page2.sessions.edges.map((e) => e.node.name)).toEqual(['alpha three', 'beta two']);
    const page3 = await alice.data(SessionsDocument, { first: 2, after: page2.sessions.pageInfo.endCursor });
    expect(page3.sessions.edges.map((e) => e.node.name)).toEqual(['alpha one']);
    expect(page3.sessions.pageInfo.hasNextPage).toBe(false);

    const filtered = await alice.data(SessionsDocument, { first: 10, filter: { nameContains: 'ALPHA' } });
    expect(filtered.sessions.edges.map((e) => e.node.name)).toEqual(['alpha five', 'alpha three', 'alpha one']);
    expect(filtered.sessions.totalCount).toBe(3);
  });

  it('reads a session directly as the same row Prisma reads, every field, and only where the caller may see it', async () => {
    const alice = newUser(server.url);
    const data = await alice.data(CreateSessionDocument, { input: { name: 'direct read', agent: 'general', routing: true, metadata: { a: [1, { b: 'c' }] } } });
    if (data.createSession.__typename !== 'CreateSessionSuccess') throw new Error(JSON.stringify(data));
    const id = decodeGlobalID(data.createSession.session.id).id;
    const direct = await getSession(server.db, contextOf(alice), id);
    expect(direct).toEqual(await server.db.prisma.session.findUniqueOrThrow({ where: { id } }));
    expect(direct.createdAt).toBeInstanceOf(Date);
    await expect(getSession(server.db, contextOf(newUser(server.url)), id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(getSession(server.db, { ...contextOf(alice), tenantId: 'another-tenant' }, id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(getSession(server.db, { ...contextOf(alice), userId: null }, id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('names the columns of direct statements as the Prisma models name their fields: sessions, messages and turns', async () => {
    const columns = async (table: string) =>
      (
        await server.db.sql.query<{ column_name: string }>(
          `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`,
          [table],
        )
      )
        .map((c) => c.column_name)
        .sort();
    expect(MESSAGE_COLUMNS.toSorted()).toEqual(await columns('messages'));
    expect(Object.values(Prisma.SessionScalarFieldEnum).map(columnOf).sort()).toEqual(await columns('sessions'));
    expect(Object.values(Prisma.TurnScalarFieldEnum).map(columnOf).sort()).toEqual(await columns('turns'));
    // TURN_COLUMNS names every field once.
    expect([...TURN_COLUMNS.matchAll(/"(\w+)"(?:,|$)/g)].map((m) => m[1])).toEqual(Object.values(Prisma.TurnScalarFieldEnum));
  });

  it('reads a turn directly (TURN_COLUMNS) as the same row Prisma reads, every field', async () => {
    const { prisma, sql } = server.db;
    const session = await prisma.session.create({ data: { name: 'turn columns', tenantId: 'default', userId: 'someone' } });
    const id = crypto.randomUUID();
    await prisma.turn.create({
      data: {
        id,
        rootId: id,
        sessionId: session.id,
        agent: 'general',
        agentVersion: 2,
        routedBy: 'RULE',
        routingRule: 'r1',
        model: 'fake:model',
        status: 'ERROR',
        agentPath: ['general'],
        iterations: 3,
        error: { code: 'INTERNAL', message: 'x' },
        toolCallsLog: [{ tool: 'search' }],
        usage: { inputTokens: 1 },
        checkpoint: { version: 1 },
        lastSeq: 4,
        runner: 'p1',
        heartbeatAt: new Date(),
        clientId: 'c1',
        tenantId: 'default',
        userId: 'someone',
        finishedAt: new Date(),
        traceId: 'a'.repeat(32),
        spanId: 'b'.repeat(16),
      },
    });
    const [direct] = await sql.query(`SELECT ${TURN_COLUMNS} FROM "turns" WHERE "id" = $1::uuid`, [id]);
    expect(direct).toEqual(await prisma.turn.findUniqueOrThrow({ where: { id } }));
  });

  it('pages through the messages of a session in order', async () => {
    const alice = newUser(server.url);
    const session = await createSession(alice, 'chatty');
    const sessionId = decodeGlobalID(session.id).id;
    const viewer = (await alice.data(ViewerDocument)).viewer;
    await server.db.prisma.message.createMany({
      data: Array.from({ length: 7 }, (_, i) => ({
        sessionId,
        seq: i + 1,
        type: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: `message ${i + 1}`,
        tenantId: viewer.tenantId,
        userId: viewer.userId,
      })),
    });
    const first = await alice.data(SessionDocument, { id: session.id, messagesFirst: 3 });
    expect(first.session?.messages.totalCount).toBe(7);
    expect(first.session?.messages.edges.map((e) => e.node.content)).toEqual(['message 1', 'message 2', 'message 3']);
    const next = await alice.data(SessionDocument, {
      id: session.id,
      messagesFirst: 10,
      messagesAfter: first.session?.messages.pageInfo.endCursor,
    });
    expect(next.session?.messages.edges.map((e) => e.node.seq)).toEqual([4, 5, 6, 7]);
    expect(next.session?.messages.edges.map((e) => e.node.type)).toEqual(['assistant', 'user', 'assistant', 'user']);
  });

  it('reports who is asking', async () => {
    const bob = caller(server.url, {
      'x-user-id': 'bob',
      'x-tenant-id': 'acme',
      'x-session-id': 'sess-1',
      'x-model-name': 'openai:gpt-4.1-mini',
      'x-is-eval': 'true',
      'x-client-id': 'web',
    });
    const { viewer } = await bob.data(ViewerDocument);
    expect(viewer).toEqual({
      userId: 'bob',
      tenantId: 'acme',
      authMode: 'HEADERS',
      isAdmin: false,
      sessionId: 'sess-1',
      defaultModel: 'openai:gpt-4.1-mini',
      isEval: true,
      clientId: 'web',
    });
  });
});

describe('scoping', () => {
  it('never shows one user another user’s session, and does not reveal that it exists', async () => {
    const tenant = `t-${Date.now()}`;
    const alice = newUser(server.url, tenant);
    const mallory = newUser(server.url, tenant);
    const session = await createSession(alice, 'private');

    const read = await mallory.request(SessionDocument, { id: session.id });
    expect(read.body.data?.session).toBeNull();
    expect(errorCode(read)).toBe('NOT_FOUND');
    const unknown = await mallory.request(SessionDocument, {
      id: Buffer.from('Session:00000000-0000-4000-8000-000000000000').toString('base64'),
    });
    expect(read.body.errors?.[0]).toEqual(unknown.body.errors?.[0]);
    expect(read.body.errors?.[0]?.message).toBe('Session not found');

    const list = await mallory.data(SessionsDocument, { first: 50 });
    expect(list.sessions.totalCount).toBe(0);

    const node = await mallory.data(NodeDocument, { id: session.id });
    expect(node.node).toBeNull();

    const rename = await mallory.data(RenameSessionDocument, { id: session.id, name: 'pwned' });
    expect(rename.renameSession).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    const del = await mallory.data(DeleteSessionDocument, { id: session.id });
    expect(del.deleteSession).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });

    const still = await alice.data(SessionDocument, { id: session.id });
    expect(still.session?.name).toBe('private');
  });

  it('keeps tenants apart even for the same user id', async () => {
    const inAcme = caller(server.url, { 'x-user-id': 'same-user', 'x-tenant-id': `acme-${Date.now()}` });
    const inGlobex = caller(server.url, { 'x-user-id': 'same-user', 'x-tenant-id': `globex-${Date.now()}` });
    const session = await createSession(inAcme, 'acme only');
    expect(errorCode(await inGlobex.request(SessionDocument, { id: session.id }))).toBe('NOT_FOUND');
    expect((await inGlobex.data(NodeDocument, { id: session.id })).node).toBeNull();
  });

  it('shows shared sessions (no owner) to every user of the tenant, read-only for non-admins', async () => {
    const tenant = `t-shared-${Date.now()}`;
    const alice = newUser(server.url, tenant);
    const outsider = newUser(server.url);
    const admin = newUser(server.url, tenant, { 'x-roles': 'admin' });
    const shared = await server.db.prisma.session.create({ data: { name: 'team room', tenantId: tenant, userId: null } });
    const { encodeGlobalID } = await import('@pothos/plugin-relay');
    const id = encodeGlobalID('Session', shared.id);

    expect((await alice.data(SessionDocument, { id })).session?.name).toBe('team room');
    expect(errorCode(await outsider.request(SessionDocument, { id }))).toBe('NOT_FOUND');
    expect((await alice.data(RenameSessionDocument, { id, name: 'mine now' })).renameSession.__typename).toBe('NotFoundError');
    expect((await admin.data(RenameSessionDocument, { id, name: 'team room 2' })).renameSession).toMatchObject({
      session: { name: 'team room 2' },
    });
  });
});

describe('sessionUpdated subscription', () => {
  it('streams renames over websockets and completes after a delete', async () => {
    const alice = newUser(server.url);
    const session = await createSession(alice, 'watched');
    const client = wsClient(server.url, alice.headers);
    try {
      const sub = collect(client, SessionUpdatedDocument, { sessionId: session.id });
      await waitUntilSubscribed(server, () => alice.data(RenameSessionDocument, { id: session.id, name: 'watched 1' }), sub.items);
      await alice.data(RenameSessionDocument, { id: session.id, name: 'watched 2' });
      await alice.data(DeleteSessionDocument, { id: session.id });
      const items = await sub.done;
      expect(items.map((i) => i.data?.sessionUpdated.name)).toEqual(['watched 1', 'watched 2', 'watched 2']);
    } finally {
      await client.dispose();
    }
  });

  it('refuses to subscribe to another user’s session', async () => {
    const alice = newUser(server.url);
    const mallory = newUser(server.url);
    const session = await createSession(alice, 'secret');
    const client = wsClient(server.url, mallory.headers);
    try {
      const sub = collect(client, SessionUpdatedDocument, { sessionId: session.id });
      await expect(sub.done).rejects.toThrow(/"code":"NOT_FOUND"/);
      expect(sub.items).toEqual([]);
    } finally {
      await client.dispose();
    }
  });

  it('streams over server-sent events with the same auth', async () => {
    const alice = newUser(server.url);
    const session = await createSession(alice, 'sse');
    const controller = new AbortController();
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { ...alice.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        query: 'subscription($id: ID!) { sessionUpdated(sessionId: $id) { name } }',
        variables: { id: session.id },
      }),
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // The subscription is registered once the response has started; rename until it is seen.
    const renamer = (async () => {
      for (let i = 0; i < 50 && !text.includes('sse renamed'); i++) {
        await alice.data(RenameSessionDocument, { id: session.id, name: 'sse renamed' });
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    while (!text.includes('sse renamed')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    controller.abort();
    await renamer;
    expect(text).toContain('"sessionUpdated":{"name":"sse renamed"}');
  });
});

/** Repeats `act` until the subscription delivered something: the subscribe races the first publish. */
async function waitUntilSubscribed(_server: TestServer, act: () => Promise<unknown>, items: unknown[]) {
  for (let i = 0; i < 100 && items.length === 0; i++) {
    await act();
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(items.length).toBeGreaterThan(0);
}
