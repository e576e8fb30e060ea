import { describe, expect, it } from 'vitest';
import { decodeGlobalID } from '@pothos/plugin-relay';
import { collect, newUser, wsClient, type Caller } from '../support/client.js';
import {
  chat,
  contentOf,
  expectGapFreeSeqs,
  followTurn,
  followUntilRefused,
  registerAgent,
  send,
  shape,
  useAgentServer,
  type Event,
} from '../support/agents.js';
import { DeleteSessionDocument, TurnDocument, TurnEventsDocument } from '../generated/graphql.js';
import { KEEP_STORED } from '../../src/events/event-hub.js';
import { storedEvents } from '../support/stored-events.js';

/** Every read of the turn event log the server makes, counted while `reading` is on. */
const logReads = { count: 0, counting: false };
const readsLog = (query: { model?: string; operation: string; sql?: string }) =>
  (query.model === 'TurnEventChunk' && /^find|^aggregate|^count/.test(query.operation)) ||
  (query.sql !== undefined && /SELECT[\s\S]*FROM\s+turn_events/i.test(query.sql) && !/INSERT/i.test(query.sql));

// A long flush window keeps events in memory while a turn streams: what a late subscriber cannot
// read from the log it must get from the hub.
const env = useAgentServer(
  { EVENT_FLUSH_MS: '2000' },
  {
    observe: (query) => {
      if (logReads.counting && readsLog(query)) logReads.count += 1;
    },
  },
);

const TOOL_AGENT = `
name: tool-agent
description: You call tools when asked.
tools:
  - name: action
`;

/** Follows a turn from `after` until `until` says stop (or the turn ends). */
function follow(user: Caller, turnId: string, after: number, until: (events: Event[]) => boolean = () => false) {
  const client = wsClient(env.server.url, user.headers);
  const sub = collect(client, TurnEventsDocument, { turnId, after }, (items) => until(items.map((i) => i.data!.turnEvents)));
  return {
    events: () => sub.items.map((i) => i.data!.turnEvents),
    done: sub.done.then(async (items) => {
      await client.dispose();
      return items.map((i) => {
        if (i.errors) throw new Error(JSON.stringify(i.errors));
        return i.data!.turnEvents;
      });
    }),
  };
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const words = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `${prefix}${i} `);
const rowId = (globalId: string) => decodeGlobalID(globalId).id;

describe('the event hub', () => {
  it('gives a subscriber that joins mid-turn every event exactly once, in order, without reading the log while live', async () => {
    const user = newUser(env.server.url);
    // Nearly five seconds of stream: the join comes ~3 s in (once 562 events are stored), and a loaded
    // machine must not let the turn end first (800 events, 4 s, did under two CPU hogs). Fewer than
    // the 1000 events `Turn.events` returns, so the stored log is compared whole below.
    env.fake.enqueue({ text: words(950), delayMs: 5 });
    const sent = await send(user, { content: 'stream for two' });
    const first = follow(user, sent.turn.id, 0);
    // Join once more of the turn is stored than the hub keeps in memory (its latest KEEP_STORED stored events), and part is only in memory.
    await until(async () => (await storedEvents(env.server.db.sql, rowId(sent.turn.id))).length > KEEP_STORED + 50);
    const storedBefore = (await storedEvents(env.server.db.sql, rowId(sent.turn.id))).length;

    logReads.count = 0;
    logReads.counting = true;
    const late = follow(user, sent.turn.id, 0);
    await until(() => late.events().length > first.events().length - 5);
    const readsToJoin = logReads.count;
    logReads.count = 0;
    const [all, lateEvents] = await Promise.all([first.done, late.done]);
    const readsWhileLive = logReads.count;
    logReads.count = 0;
    await followTurn(env.server.url, user, sent.turn.id);
    const readsToReplay = logReads.count;
    logReads.counting = false;

    expect(storedBefore).toBeLessThan(all.length - 10);
    expect(readsToJoin).toBe(1);
    expect(readsWhileLive).toBe(0);
    expect(readsToReplay).toBeGreaterThan(0);
    expectGapFreeSeqs(all);
    expect(lateEvents).toEqual(all);
    expect(contentOf(all)).toBe(words(950).join(''));
    expect(all.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
    // What was live is what was stored.
    expect((await user.data(TurnDocument, { id: sent.turn.id })).turn!.events).toEqual(all);
  });

  it('resumes from any seq mid-turn, whether the events are stored yet or not', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: words(60), delayMs: 8 });
    const sent = await send(user, { content: 'resume me' });
    const first = follow(user, sent.turn.id, 0, (events) => events.length >= 30);
    const head = await first.done;
    const rest = await follow(user, sent.turn.id, 17).done;
    expect([...head.slice(0, 17), ...rest]).toEqual(await followTurn(env.server.url, user, sent.turn.id));
    expectGapFreeSeqs(rest, 18);
  });

  it('streams 40 concurrent turns, each to a fresh subscriber from seq 0, gap-free and complete', async () => {
    const users = Array.from({ length: 40 }, () => newUser(env.server.url));
    env.fake.enqueue(...users.map(() => ({ text: words(25), delayMs: 5 })));
    const results = await Promise.all(users.map((user, i) => chat(env.server.url, user, { content: `turn ${i}` })));
    for (const { events, turn } of results) {
      expectGapFreeSeqs(events);
      expect(contentOf(events)).toBe(words(25).join(''));
      expect(turn.status).toBe('COMPLETED');
      expect(turn.events).toEqual(events);
    }
  });

  it('stores a NUL character in a tool argument as U+FFFD for that turn alone; a concurrent turn is unaffected', async () => {
    const user = newUser(env.server.url);
    const bystander = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    // Both turns run at once, so either may ask first: each reply depends on who asks.
    const reply = (request: { body: { messages: { role: string; content: string }[] } }) => {
      const messages = request.body.messages;
      if (!messages.some((m) => m.role === 'user' && m.content === 'nul please')) return { text: words(40, 'b'), delayMs: 5 };
      if (messages.some((m) => m.role === 'tool')) return { text: 'Recorded the odd one.' };
      return { toolCalls: [{ id: 'n1', name: 'action', arguments: '{"type": "nul\\u0000byte", "payload": {"note": "a\\u0000b"}}' }], delayMs: 5 };
    };
    env.fake.enqueue(reply, reply, reply);
    const [odd, calm] = await Promise.all([
      chat(env.server.url, user, { content: 'nul please', agent: 'tool-agent' }),
      chat(env.server.url, bystander, { content: 'just talk' }),
    ]);

    expect(shape(odd.events)).toEqual(['tool_call', 'action', 'tool_result', 'content*', 'final']);
    expect(odd.events[0]).toMatchObject({ arguments: { type: 'nul\uFFFDbyte', payload: { note: 'a\uFFFDb' } } });
    expect(odd.turn).toMatchObject({ status: 'COMPLETED' });
    expect(odd.turn.events).toEqual(odd.events);
    expect(odd.turn.session.messages.edges.map((e) => e.node.type)).toEqual(['user', 'tool_call', 'tool_response', 'assistant']);

    expectGapFreeSeqs(calm.events);
    expect(contentOf(calm.events)).toBe(words(40, 'b').join(''));
    expect(calm.turn.events).toEqual(calm.events);
  });

  it('keeps other turns intact when a session is deleted mid-turn', async () => {
    const doomed = newUser(env.server.url);
    const other = newUser(env.server.url);
    env.fake.enqueue(
      (request) => (request.body.messages.at(-1).content === 'doomed' ? { text: words(200, 'd'), delayMs: 10 } : { text: words(60, 'o'), delayMs: 10 }),
      (request) => (request.body.messages.at(-1).content === 'doomed' ? { text: words(200, 'd'), delayMs: 10 } : { text: words(60, 'o'), delayMs: 10 }),
    );
    const gone = await send(doomed, { content: 'doomed' });
    const kept = await send(other, { content: 'kept' });
    const goneStream = follow(doomed, gone.turn.id, 0);
    const keptStream = follow(other, kept.turn.id, 0);
    await until(() => goneStream.events().length >= 10 && keptStream.events().length >= 10);

    const deleted = await doomed.data(DeleteSessionDocument, { id: gone.session.id });
    expect(deleted.deleteSession.__typename).toBe('DeleteSessionSuccess');
    const goneEvents = await goneStream.done;
    expect(goneEvents.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'CANCELLED' });
    expect(await env.server.db.prisma.turn.count({ where: { id: rowId(gone.turn.id) } })).toBe(0);
    expect(await env.server.db.prisma.turnEventChunk.count({ where: { turnId: rowId(gone.turn.id) } })).toBe(0);
    // Nothing of it is kept for late followers either (it ended after its session was deleted).
    expect(String(await followUntilRefused(env.server.url, doomed, gone.turn.id))).toMatch(/NOT_FOUND/);

    const keptEvents = await keptStream.done;
    expectGapFreeSeqs(keptEvents);
    expect(contentOf(keptEvents)).toBe(words(60, 'o').join(''));
    const stored = (await other.data(TurnDocument, { id: kept.turn.id })).turn!;
    expect(stored.status).toBe('COMPLETED');
    expect(stored.events).toEqual(keptEvents);
  });
});
