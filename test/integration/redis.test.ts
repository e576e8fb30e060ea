import { decodeGlobalID } from '@pothos/plugin-relay';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { caller, collect, newUser, wsClient } from '../support/client.js';
import { followTurn, send } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { CancelTurnDocument, SessionEventsDocument, TurnDocument, TurnEventsDocument } from '../generated/graphql.js';
import { databaseUrl } from '../support/database-url.js';

// vitest.config.ts prints one line when this suite is skipped.
const REDIS_URL = process.env.TEST_REDIS_URL;

let fake: FakeOpenAI;
const running: ServerProcess[] = [];
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake?.close();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop('SIGKILL')));
  fake.reset();
});

async function instance(env: Record<string, string> = {}) {
  const server = await spawnServer({
    // Each instance one process: these tests are about separate instances (test/integration/workers.test.ts runs several workers).
    WORKERS: '1',
    ...env,
    DATABASE_URL: databaseUrl(),
    REDIS_URL: REDIS_URL!,
    OPENAI_API_KEY: 'test',
    OPENAI_BASE_URL: fake.url,
    LLM_DEFAULT_MODEL: 'openai:fake-model',
  });
  running.push(server);
  return server;
}

// Several instances need a shared database, so this runs on the postgres backend only.
describe.runIf(databaseUrl() && REDIS_URL)('several instances sharing PostgreSQL and Redis', () => {
  it('streams a turn running on one instance live to a client of another, and cancels across them', async () => {
    const [a, b] = await Promise.all([instance(), instance()]);
    const user = newUser(a.url);
    const onB = caller(b.url, user.headers);

    fake.enqueue({ text: Array.from({ length: 40 }, (_, i) => `t${i} `), delayMs: 20 });
    const sent = await send(user, { content: 'stream to B' });
    const events = await followTurn(b.url, onB, sent.turn.id);
    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
    expect(events.map((e) => (e as { seq: number }).seq)).toEqual(events.map((_, i) => i + 1));

    fake.enqueue({ text: ['never ', 'finishing'], stallAfterChunks: 2 });
    const slow = await send(user, { content: 'cancel me from B', sessionId: sent.session.id });
    const client = wsClient(b.url, user.headers);
    const sub = collect(client, TurnEventsDocument, { turnId: slow.turn.id });
    const cancelled = await onB.data(CancelTurnDocument, { id: slow.turn.id });
    expect(cancelled.cancelTurn).toMatchObject({ turn: { status: 'CANCELLED' } });
    const tail = (await sub.done).map((i) => i.data!.turnEvents);
    await client.dispose();
    expect(tail.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'CANCELLED' });
  });

  it('gives a client of another instance that joins mid-turn the events not stored yet, exactly once and in order', async () => {
    // A stores events only every 2 s: most of what B's client needs exists only in A's memory and
    // the relay when it joins.
    const [a, b] = await Promise.all([instance({ EVENT_FLUSH_MS: '2000' }), instance()]);
    const user = newUser(a.url);
    const onB = caller(b.url, user.headers);
    const words = Array.from({ length: 120 }, (_, i) => `w${i} `);
    fake.enqueue({ text: words, delayMs: 10 });
    const sent = await send(user, { content: 'join me late' });
    const onA = wsClient(a.url, user.headers);
    const first = collect(onA, TurnEventsDocument, { turnId: sent.turn.id });
    while (first.items.length < 30) await new Promise((r) => setTimeout(r, 10));
    const storedAtJoin = (await onB.data(TurnDocument, { id: sent.turn.id })).turn!.events.length;
    const seenAtJoin = first.items.length;
    const late = await followTurn(b.url, onB, sent.turn.id);
    const all = (await first.done).map((i) => i.data!.turnEvents);
    await onA.dispose();
    expect(storedAtJoin).toBeLessThan(seenAtJoin);
    expect(late).toEqual(all);
    expect(all.map((e) => (e as { seq: number }).seq)).toEqual(all.map((_, i) => i + 1));
    expect(all.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED', content: words.join('') });
  });

  it('publishes each event of a turn once on its turn’s channel and once on its session’s, and both its followers and its session’s on another instance get every event', async () => {
    const [a, b] = await Promise.all([instance(), instance()]);
    const user = newUser(a.url);
    const onB = caller(b.url, user.headers);
    fake.enqueue({ text: 'opens the session' });
    const first = await send(user, { content: 'first' });
    await followTurn(b.url, onB, first.turn.id);

    // Sees every message published on any channel of this Redis.
    const watcher = new Redis(REDIS_URL!);
    const crossed: { channel: string; message: string }[] = [];
    watcher.on('pmessage', (_pattern: string, channel: string, message: string) => crossed.push({ channel, message }));
    const admin = new Redis(REDIS_URL!);
    // Channels and patterns subscribed to by every client of this Redis.
    const subscriptions = async () =>
      ((await admin.client('LIST')) as string)
        .split('\n')
        .reduce((n, line) => n + Number(/ sub=(\d+)/.exec(line)?.[1] ?? 0) + Number(/ psub=(\d+)/.exec(line)?.[1] ?? 0), 0);
    try {
      await watcher.psubscribe('*');
      const before = await subscriptions();
      const client = wsClient(b.url, user.headers);
      const session = collect(client, SessionEventsDocument, { sessionId: first.session.id }, (items) =>
        items.some((i) => i.data?.sessionEvents.__typename === 'FinalEvent'),
      );
      // The subscription is in effect once B has subscribed to the session's events in Redis.
      while ((await subscriptions()) <= before) await new Promise((r) => setTimeout(r, 20));

      fake.enqueue({ text: Array.from({ length: 20 }, (_, i) => `c${i} `), delayMs: 5 });
      const second = await send(user, { content: 'count me', sessionId: first.session.id });
      const events = await followTurn(b.url, onB, second.turn.id);
      const sessionEvents = (await session.done).map((i) => i.data!.sessionEvents);
      await client.dispose();
      const turnId = decodeGlobalID(second.turn.id).id;
      // Other suites may share this Redis: only messages carrying this turn's events count.
      const published = () =>
        crossed
          .filter(({ message }) => message.includes(turnId))
          .map(({ channel, message }) => ({ channel, event: JSON.parse(message) as { turnId?: string; seq?: number; type?: string } }))
          .filter(({ event }) => event.turnId === turnId);
      while (!published().some(({ event }) => event.type === 'final')) await new Promise((r) => setTimeout(r, 20));

      expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
      expect(sessionEvents).toEqual(events);
      // Each event once on its turn's channel and once on its session's: session followers subscribe
      // to a plain channel, since Redis matches every message against every pattern subscribed.
      const seqs = events.map((e) => (e as { seq: number }).seq);
      const sessionId = decodeGlobalID(first.session.id).id;
      const on = (channel: string) =>
        published()
          .filter((p) => p.channel === channel)
          .map(({ event }) => event.seq);
      expect(new Set(published().map(({ channel }) => channel))).toEqual(new Set([`remgraph:turn-events:${turnId}`, `remgraph:session-events:${sessionId}`]));
      expect(on(`remgraph:turn-events:${turnId}`)).toEqual(seqs);
      expect(on(`remgraph:session-events:${sessionId}`)).toEqual(seqs);
    } finally {
      watcher.disconnect();
      admin.disconnect();
    }
  });
});
