import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { decodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { caller, collect, newUser, wsClient, type Caller } from '../support/client.js';
import { chat, send, useAgentServer } from '../support/agents.js';
import { backend } from '../support/server.js';
import {
  ApprovalsChangedDocument,
  CancelTurnDocument,
  CreateSessionDocument,
  ExtractDocument,
  ReplayTurnDocument,
  SendMessageDocument,
  SessionUpdatedDocument,
} from '../generated/graphql.js';

// Ephemeral turns are dropped as soon as they end here (no retention), so the tests can show that
// a dropped turn still counts.
const env = useAgentServer({
  EPHEMERAL_TURN_RETENTION_MS: '0',
  MAX_CONCURRENT_TURNS_PER_USER: '2',
  MAX_TURNS_PER_MINUTE: '4',
  MAX_WS_CONNECTIONS_PER_USER: '2',
  MAX_SUBSCRIPTIONS_PER_CONNECTION: '2',
});

const messagesOf = (user: Caller) => env.server.db.prisma.message.count({ where: { userId: user.headers['x-user-id'] } });

/** Waits until `user` has no turn rows left (an ended ephemeral turn is dropped just after its stream ends). */
async function untilNoTurns(user: Caller) {
  const count = () => env.server.db.prisma.turn.count({ where: { tenantId: user.headers['x-tenant-id'], userId: user.headers['x-user-id'] ?? null } });
  for (let i = 0; i < 400 && (await count()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(await count()).toBe(0);
}

/** Asserts a RateLimitedError naming `setting`. */
function expectRefused(payload: { __typename: string }, setting: string) {
  expect(payload).toMatchObject({ __typename: 'RateLimitedError', code: 'RATE_LIMITED', message: expect.stringContaining(setting) });
}

/**
 * Turns of `user` running on some other instance (in new sessions, or in `inSession`): only the
 * database knows about them. No runner is named: one that is not a live process would be taken over
 * (and its turns interrupted) at once.
 */
async function runningElsewhere(user: Caller, count: number, inSession?: string): Promise<string[]> {
  const tenantId = user.headers['x-tenant-id']!;
  const userId = user.headers['x-user-id'] ?? null;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const session = inSession ? { id: inSession } : await env.server.db.prisma.session.create({ data: { name: `elsewhere ${i}`, tenantId, userId } });
    const id = randomUUID();
    await env.server.db.prisma.turn.create({
      data: { id, rootId: id, sessionId: session.id, agent: 'general', agentPath: ['general'], status: 'RUNNING', tenantId, userId },
    });
    ids.push(id);
  }
  return ids;
}

describe('turn quotas', () => {
  it('refuses a turn past MAX_CONCURRENT_TURNS_PER_USER, counting turns running on other instances, with a retry hint', async () => {
    const user = newUser(env.server.url);
    const elsewhere = await runningElsewhere(user, 2);
    const refused = await user.data(SendMessageDocument, { input: { content: 'one more' } });
    if (refused.sendMessage.__typename !== 'RateLimitedError') throw new Error(`expected RATE_LIMITED, got ${JSON.stringify(refused.sendMessage)}`);
    expect(refused.sendMessage.message).toContain('MAX_CONCURRENT_TURNS_PER_USER');
    expect(refused.sendMessage.retryAfterMs).toBeGreaterThan(0);
    expect(await messagesOf(user)).toBe(0);

    // Another user of the same tenant is not held back.
    const neighbour = newUser(env.server.url, user.headers['x-tenant-id']);
    env.fake.enqueue({ text: 'Hi neighbour.' });
    expect((await chat(env.server.url, neighbour, { content: 'hello' })).turn.status).toBe('COMPLETED');

    // Once those turns end, the user may start again.
    await env.server.db.prisma.turn.updateMany({ where: { id: { in: elsewhere } }, data: { status: 'COMPLETED', runner: null } });
    env.fake.enqueue({ text: 'Now there is room.' });
    expect((await chat(env.server.url, user, { content: 'now?' })).turn.status).toBe('COMPLETED');
  });

  it('refuses a turn past MAX_TURNS_PER_MINUTE with the time until one is free, storing nothing', async () => {
    const user = newUser(env.server.url);
    const turnIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      env.fake.enqueue({ text: `answer ${i}` });
      turnIds.push((await chat(env.server.url, user, { content: `question ${i}` })).sent.turn.id);
    }
    const stored = await messagesOf(user);
    const refused = await user.data(SendMessageDocument, { input: { content: 'fifth' } });
    if (refused.sendMessage.__typename !== 'RateLimitedError') throw new Error(`expected RATE_LIMITED, got ${JSON.stringify(refused.sendMessage)}`);
    expect(refused.sendMessage).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('MAX_TURNS_PER_MINUTE') });
    expect(refused.sendMessage.retryAfterMs).toBeGreaterThan(0);
    expect(refused.sendMessage.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(await messagesOf(user)).toBe(stored);

    // A replay starts a turn too: refused before its fork is stored.
    const sessions = () => env.server.db.prisma.session.count({ where: { userId: user.headers['x-user-id'] } });
    const before = await sessions();
    expectRefused((await user.data(ReplayTurnDocument, { turnId: turnIds[0]! })).replayTurn, 'MAX_TURNS_PER_MINUTE');
    expect(await sessions()).toBe(before);
    expect(await messagesOf(user)).toBe(stored);
  });

  it('counts a start toward MAX_TURNS_PER_MINUTE until it is a minute old, then frees its slot', async () => {
    const user = newUser(env.server.url);
    const tenantId = user.headers['x-tenant-id']!;
    const userId = user.headers['x-user-id'] ?? null;
    // Four earlier starts, as this or another instance recorded them: three a minute ago, one 30 s ago.
    const ago = (ms: number) => new Date(Date.now() - ms);
    const starts = [61_000, 61_000, 61_000, 30_000].map((age, i) => ({ tenantId, userId, startedAt: ago(age), ordinal: BigInt(i + 1) }));
    await env.server.db.prisma.quotaStart.createMany({ data: starts });
    // One start within the minute: three more are admitted, the fourth is refused until the 30 s old one is a minute old.
    for (let i = 0; i < 3; i++) {
      env.fake.enqueue({ text: `answer ${i}` });
      await chat(env.server.url, user, { content: `question ${i}` });
    }
    const refused = (await user.data(SendMessageDocument, { input: { content: 'one too many' } })).sendMessage;
    if (refused.__typename !== 'RateLimitedError') throw new Error(`expected RATE_LIMITED, got ${JSON.stringify(refused)}`);
    expect(refused.message).toContain('started 4 turns or extractions in the last minute');
    expect(refused.retryAfterMs).toBeGreaterThan(25_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(30_000);
    // The starts older than a minute were pruned on the way.
    expect(await env.server.db.prisma.quotaStart.count({ where: { tenantId, userId } })).toBe(4);
  });

  it.runIf(backend() === 'pglite')('on PGlite, the maintenance sweep vacuums pruned starts, so later starts do not read them again', async () => {
    // Pages the start's prune reads to find the caller's first start to keep (from the oldest).
    const pagesRead = async (user: Caller) => {
      const plan = await env.server.db.sql.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS) SELECT ordinal FROM quota_starts WHERE tenant_id = $1 AND user_id = $2 ORDER BY ordinal LIMIT 1`,
        [user.headers['x-tenant-id'], user.headers['x-user-id']],
      );
      const buffers = /Buffers: shared(?: hit=(\d+))?(?: read=(\d+))?/.exec(plan.map((row) => row['QUERY PLAN']).join('\n'));
      return Number(buffers?.[1] ?? 0) + Number(buffers?.[2] ?? 0);
    };
    // 5,000 starts over a minute old, as a busy caller leaves them: the next start prunes them all.
    const prunedStarts = async () => {
      const user = newUser(env.server.url);
      await env.server.db.sql.query(
        `INSERT INTO quota_starts (tenant_id, user_id, started_at, ordinal) SELECT $1, $2, now() - interval '2 minutes', g FROM generate_series(1, 5000) AS g`,
        [user.headers['x-tenant-id'], user.headers['x-user-id']],
      );
      env.fake.enqueue({ text: 'pruned' });
      await chat(env.server.url, user, { content: 'one start' });
      expect(await env.server.db.prisma.quotaStart.count({ where: { tenantId: user.headers['x-tenant-id']!, userId: user.headers['x-user-id']! } })).toBe(1);
      return { user, before: await pagesRead(user) };
    };
    // PGlite has no autovacuum: until a VACUUM, the pruned starts' index entries are still read. A
    // sweep that ran between the start and the first read has vacuumed them already: then again.
    let { user, before } = await prunedStarts();
    for (let attempt = 1; attempt < 3 && before <= 10; attempt++) ({ user, before } = await prunedStarts());
    expect(before).toBeGreaterThan(10);
    let after = before;
    for (const deadline = Date.now() + 20_000; after > 6 && Date.now() < deadline; after = await pagesRead(user)) await sleep(250);
    expect(after, `pages read before the sweep: ${before}`).toBeLessThanOrEqual(6);
  });

  it('counts ephemeral turns toward MAX_TURNS_PER_MINUTE, though each is dropped once it ended', async () => {
    const user = newUser(env.server.url);
    for (let i = 0; i < 4; i++) {
      env.fake.enqueue({ text: `answer ${i}` });
      await send(user, { content: `question ${i}`, ephemeral: true });
      await untilNoTurns(user);
    }
    const refused = await user.data(SendMessageDocument, { input: { content: 'fifth', ephemeral: true } });
    expectRefused(refused.sendMessage, 'MAX_TURNS_PER_MINUTE');
    expect(env.fake.chatRequests).toHaveLength(4);
  });

  it('admits anonymous callers under one allowance per tenant, shared by all of them', async () => {
    const tenant = `t-${randomUUID()}`;
    const anonymous = caller(env.server.url, { 'x-tenant-id': tenant });
    const elsewhere = await runningElsewhere(anonymous, 2);
    const busy = await anonymous.data(SendMessageDocument, { input: { content: 'one more', ephemeral: true } });
    expectRefused(busy.sendMessage, 'MAX_CONCURRENT_TURNS_PER_USER');
    await env.server.db.prisma.turn.deleteMany({ where: { id: { in: elsewhere } } });

    for (let i = 0; i < 4; i++) {
      env.fake.enqueue({ text: `answer ${i}` });
      await send(anonymous, { content: `question ${i}`, ephemeral: true });
      await untilNoTurns(anonymous);
    }
    // Another anonymous caller of the tenant is the same bucket; a named user of the tenant is not.
    const another = caller(env.server.url, { 'x-tenant-id': tenant, 'x-client-id': 'another-browser' });
    const refused = await another.data(SendMessageDocument, { input: { content: 'fifth', ephemeral: true } });
    expectRefused(refused.sendMessage, 'MAX_TURNS_PER_MINUTE');
    expect(env.fake.chatRequests).toHaveLength(4);
    env.fake.enqueue({ text: 'Hello, named user.' });
    expect((await chat(env.server.url, newUser(env.server.url, tenant), { content: 'hello' })).turn.status).toBe('COMPLETED');
  });

  it('counts extractions as starts and refuses one past either limit before it calls the model', async () => {
    const user = newUser(env.server.url);
    const schema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
    const extract = async () => (await user.data(ExtractDocument, { input: { agent: 'general', content: 'Invoice total: 12', schema } })).extract;
    const elsewhere = await runningElsewhere(user, 2);
    expectRefused(await extract(), 'MAX_CONCURRENT_TURNS_PER_USER');
    await env.server.db.prisma.turn.updateMany({ where: { id: { in: elsewhere } }, data: { status: 'COMPLETED', runner: null } });

    for (let i = 0; i < 4; i++) {
      env.fake.enqueue({ json: { total: 12 } });
      expect(await extract()).toMatchObject({ __typename: 'ExtractPayload', data: { total: 12 } });
    }
    expectRefused(await extract(), 'MAX_TURNS_PER_MINUTE');
    // Turns and extractions draw on the same allowance.
    expectRefused((await user.data(SendMessageDocument, { input: { content: 'and a turn?' } })).sendMessage, 'MAX_TURNS_PER_MINUTE');
    expect(env.fake.chatRequests).toHaveLength(4);
  });

  it('refuses a send into a routing session, busy or over quota, before the routing classifier calls the model', async () => {
    const user = newUser(env.server.url);
    const created = await user.data(CreateSessionDocument, { input: { name: 'routed', routing: true } });
    if (created.createSession.__typename !== 'CreateSessionSuccess') throw new Error('setup failed');
    const sessionId = created.createSession.session.id;
    const [running] = await runningElsewhere(user, 1, decodeGlobalID(sessionId).id);
    const busy = await user.data(SendMessageDocument, { input: { content: 'anyone there?', sessionId } });
    expect(busy.sendMessage).toMatchObject({ __typename: 'SessionBusyError', code: 'SESSION_BUSY', sessionId });
    await env.server.db.prisma.turn.update({ where: { id: running }, data: { status: 'COMPLETED', runner: null } });

    await runningElsewhere(user, 2);
    const limited = await user.data(SendMessageDocument, { input: { content: 'and now?', sessionId } });
    expectRefused(limited.sendMessage, 'MAX_CONCURRENT_TURNS_PER_USER');
    expect(env.fake.chatRequests).toHaveLength(0);
    expect(await messagesOf(user)).toBe(0);
  });

  it('takes parallel sends of one user one at a time, so they cannot all slip under the limit', async () => {
    const user = newUser(env.server.url);
    await runningElsewhere(user, 1);
    env.fake.enqueue({ text: 'only one', hang: true });
    const results = await Promise.all([1, 2, 3].map((i) => user.data(SendMessageDocument, { input: { content: `parallel ${i}` } })));
    const kinds = results.map((r) => r.sendMessage.__typename).sort();
    expect(kinds).toEqual(['RateLimitedError', 'RateLimitedError', 'SendMessagePayload']);
    const started = results.map((r) => r.sendMessage).find((p) => p.__typename === 'SendMessagePayload');
    if (started?.__typename !== 'SendMessagePayload') throw new Error('no turn started');
    // Releases the model call that hangs.
    await user.data(CancelTurnDocument, { id: started.turn.id });
  });
});

/** Opens a graphql-ws connection for `user`; resolves 'ack' or the close code. */
function connect(user: Caller): Promise<{ result: 'ack' | number; socket: WebSocket }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(env.server.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: user.headers })));
    socket.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'connection_ack') resolve({ result: 'ack', socket });
    });
    socket.once('close', (code) => resolve({ result: code, socket }));
    socket.once('error', reject);
  });
}

describe('websocket quotas', () => {
  it('closes a connection past MAX_WS_CONNECTIONS_PER_USER with 4429 and frees the slot when one closes', async () => {
    const user = newUser(env.server.url);
    const first = await connect(user);
    const second = await connect(user);
    expect([first.result, second.result]).toEqual(['ack', 'ack']);
    const third = await connect(user);
    expect(third.result).toBe(4429);
    // Other users have their own allowance.
    const other = await connect(newUser(env.server.url));
    expect(other.result).toBe('ack');

    await new Promise((resolve) => {
      first.socket.once('close', resolve);
      first.socket.close();
    });
    const again = await connect(user);
    expect(again.result).toBe('ack');
    for (const s of [second, other, again]) s.socket.close();
  });

  it('refuses a subscription past MAX_SUBSCRIPTIONS_PER_CONNECTION with RATE_LIMITED, keeping the others', async () => {
    const user = newUser(env.server.url);
    const created = await user.data(CreateSessionDocument, { input: { name: 'watched' } });
    if (created.createSession.__typename !== 'CreateSessionSuccess') throw new Error('setup failed');
    const sessionId = created.createSession.session.id;
    const client = wsClient(env.server.url, user.headers);
    try {
      const a = collect(client, SessionUpdatedDocument, { sessionId });
      const b = collect(client, ApprovalsChangedDocument, { sessionId });
      await new Promise((r) => setTimeout(r, 300));
      const c = collect(client, SessionUpdatedDocument, { sessionId });
      await expect(c.done).rejects.toThrow(/RATE_LIMITED.*|MAX_SUBSCRIPTIONS_PER_CONNECTION/);
      a.stop();
      b.stop();
    } finally {
      await client.dispose();
    }
  });
});
