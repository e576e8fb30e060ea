import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { AgentEvent } from '../../src/events/agent-event.js';
import { Prisma } from '../../src/db/generated/client.js';
import type { ModelCallRow } from '../../src/events/event-statements.js';
import { EventWriter, VanishedTurnError } from '../../src/events/event-writer.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { storedEvents } from '../support/stored-events.js';

// The batched event writer on a real database: order per turn, commits in line, and one turn's
// trouble kept away from the others.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

/** A logger that keeps what it is told. */
function recordingLogger() {
  const lines: { level: number; msg: string; turnId?: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

async function newTurns(n: number): Promise<string[]> {
  const prisma = server.db.prisma;
  return Promise.all(
    Array.from({ length: n }, async () => {
      const session = await prisma.session.create({ data: { name: 'w', tenantId: `t-${randomUUID()}` } });
      const id = randomUUID();
      await prisma.turn.create({ data: { id, rootId: id, sessionId: session.id, agent: 'a', tenantId: session.tenantId } });
      return id;
    }),
  );
}

const event = (turnId: string, seq: number, delta = `d${seq}`): AgentEvent => ({
  seq,
  turnId,
  at: new Date().toISOString(),
  agent: 'a',
  depth: 0,
  type: 'content',
  delta,
});

async function stored(turnId: string) {
  return (await storedEvents(server.db.sql, turnId)).map((event) => event.seq);
}

describe('the event writer', () => {
  it('stores every turn’s events in order, a commit in its place with its rows, and reports each event once', async () => {
    const [a, b] = await newTurns(2);
    const settled: AgentEvent[] = [];
    const writer = new EventWriter(server.db.prisma, server.db.sql, recordingLogger().logger, 5, (events) => settled.push(...events));
    for (let seq = 1; seq <= 5; seq++) writer.enqueue(event(a!, seq));
    writer.enqueue(event(b!, 1));
    const committed = writer.commit({
      turnId: a!,
      events: [event(a!, 6, 'final')],
      persist: (tx) => tx.turn.update({ where: { id: a! }, data: { iterations: 7 } }),
    });
    writer.enqueue(event(a!, 7));
    await committed;
    await writer.drain();
    expect(await stored(a!)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(await stored(b!)).toEqual([1]);
    expect(await server.db.prisma.turn.findUniqueOrThrow({ where: { id: a! } })).toMatchObject({ iterations: 7, lastSeq: 6 });
    expect(settled.filter((e) => e.turnId === a).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('stores a streamed answer compactly, under the size from which PostgreSQL compresses a row, and reads it back event by event', async () => {
    const [a] = await newTurns(1);
    const writer = new EventWriter(server.db.prisma, server.db.sql, recordingLogger().logger, 5, () => {});
    const events = Array.from({ length: 50 }, (_, i) => event(a!, i + 1, 'x '));
    await writer.commit({ turnId: a!, events });
    const [row] = await server.db.sql.query<{ bytes: number }>('SELECT octet_length(events::text)::int AS bytes FROM turn_events WHERE turn_id = $1::uuid', [
      a,
    ]);
    // 50 whole events take about 7.5 kB; PostgreSQL compresses a row over 2 kB before storing it.
    expect(row!.bytes).toBeLessThan(2000);
    expect(await storedEvents(server.db.sql, a!)).toEqual(events);
  });

  it('stores a turn’s events as one chunk per write, and a write that repeats stored events (retried after it did commit) adds only the new ones', async () => {
    const [a, b] = await newTurns(2);
    const writer = new EventWriter(server.db.prisma, server.db.sql, recordingLogger().logger, 5, () => {});
    for (let seq = 1; seq <= 3; seq++) writer.enqueue(event(a!, seq));
    writer.enqueue(event(b!, 1));
    await writer.drain();
    // A connection lost after the commit: the writer cannot tell, and writes the same events again with newer ones.
    for (let seq = 1; seq <= 5; seq++) writer.enqueue(event(a!, seq, `again ${seq}`));
    writer.enqueue(event(b!, 1, 'again'));
    await writer.drain();
    await writer.commit({ turnId: a!, events: [4, 5, 6].map((seq) => event(a!, seq, `commit ${seq}`)) });
    const chunks = await server.db.prisma.turnEventChunk.findMany({ where: { turnId: a! }, orderBy: { seq: 'asc' } });
    expect(chunks.map((c) => [c.seq, c.lastSeq])).toEqual([
      [1, 3],
      [4, 5],
      [6, 6],
    ]);
    expect((await storedEvents(server.db.sql, a!)).map((e) => (e as { delta: string }).delta)).toEqual(['d1', 'd2', 'd3', 'again 4', 'again 5', 'commit 6']);
    expect(await stored(b!)).toEqual([1]);
    expect(await server.db.prisma.turn.findUniqueOrThrow({ where: { id: a! } })).toMatchObject({ lastSeq: 6 });
  });

  it('keeps a turn whose events cannot be stored away from the others, and says so in the log', async () => {
    const [good, bad] = await newTurns(2);
    const { logger, lines } = recordingLogger();
    const settled: AgentEvent[] = [];
    const writer = new EventWriter(server.db.prisma, server.db.sql, logger, 5, (events) => settled.push(...events));
    writer.enqueue(event(good!, 1));
    // A seq beyond PostgreSQL's integer range fails the whole statement (SQLSTATE 22003).
    writer.enqueue(event(bad!, 2 ** 31));
    writer.enqueue(event(good!, 2));
    await writer.drain();
    expect(await stored(good!)).toEqual([1, 2]);
    expect(await stored(bad!)).toEqual([]);
    expect(lines.filter((l) => l.level >= 50 && l.turnId === bad)).toMatchObject([{ msg: 'dropped turn events that could not be stored' }]);
    expect(settled.map((e) => e.seq).sort()).toEqual([1, 2, 2 ** 31].sort());
  });

  it('drops the events and commits of a turn deleted meanwhile with a warning, and stores the rest', async () => {
    const [kept] = await newTurns(1);
    const gone = randomUUID();
    const { logger, lines } = recordingLogger();
    const writer = new EventWriter(server.db.prisma, server.db.sql, logger, 5, () => {});
    writer.enqueue(event(kept!, 1));
    writer.enqueue(event(gone, 1));
    await writer.drain();
    await expect(writer.commit({ turnId: gone, events: [event(gone, 2)] })).rejects.toBeInstanceOf(VanishedTurnError);
    writer.enqueue(event(kept!, 2));
    await writer.drain();
    expect(await stored(kept!)).toEqual([1, 2]);
    expect(lines.filter((l) => l.turnId === gone)).toMatchObject([
      { level: 40, msg: 'discarding events of a turn that no longer exists (its session was deleted)' },
    ]);
  });

  it('stores a model call with its turn’s next events, and a one-statement commit only while the turn may be written', async () => {
    const [a, b] = await newTurns(2);
    const { logger } = recordingLogger();
    const writer = new EventWriter(server.db.prisma, server.db.sql, logger, 5, () => {});
    const turnA = await server.db.prisma.turn.findUniqueOrThrow({ where: { id: a! } });
    const call = (turnId: string, sessionId: string, tenantId: string, iteration: number): ModelCallRow => ({
      turnId,
      llmCall: {
        turn_id: turnId,
        session_id: sessionId,
        provider: 'openai',
        model: 'm',
        iteration,
        input_tokens: 3,
        usage_estimated: false,
        output_tokens: 4,
        latency_ms: 5,
        finish_reason: 'stop',
        error: null,
        request: '{"exact": "body\u00e9"}',
        request_history: null,
        tenant_id: tenantId,
        user_id: null,
        created_at: new Date().toISOString(),
      },
    });
    writer.recordModelCall(call(a!, turnA.sessionId, turnA.tenantId, 0));
    writer.enqueue(event(a!, 1));
    await writer.drain();
    // With the outcome: its own row's writes and last seq in one UPDATE, the model call with it.
    writer.recordModelCall(call(a!, turnA.sessionId, turnA.tenantId, 1));
    const ok = Prisma.sql`(SELECT ok FROM allowed)`;
    await writer.commit({
      turnId: a!,
      events: [event(a!, 2, 'final')],
      persist: {
        allowed: Prisma.sql`TRUE`,
        ctes: Prisma.empty,
        set: Prisma.sql`iterations = 7`,
        refused: () => Object.assign(new Error('refused'), { permanent: true }),
      },
    });
    expect(await stored(a!)).toEqual([1, 2]);
    expect(await server.db.prisma.turn.findUniqueOrThrow({ where: { id: a! } })).toMatchObject({ iterations: 7, lastSeq: 2 });
    const calls = await server.db.prisma.llmCall.findMany({ where: { turnId: a! }, orderBy: { iteration: 'asc' } });
    expect(calls).toMatchObject([
      { iteration: 0, inputTokens: 3, outputTokens: 4, request: '{"exact": "body\u00e9"}' },
      { iteration: 1, finishReason: 'stop' },
    ]);

    // A turn this process may not write (its fence fails): nothing of the commit is stored.
    const turnB = await server.db.prisma.turn.findUniqueOrThrow({ where: { id: b! } });
    writer.recordModelCall(call(b!, turnB.sessionId, turnB.tenantId, 0));
    const refused = writer.commit({
      turnId: b!,
      events: [event(b!, 1, 'final')],
      persist: {
        allowed: Prisma.sql`FALSE`,
        ctes: Prisma.sql`touched AS (UPDATE sessions SET name = 'changed' WHERE id = ${turnB.sessionId}::uuid AND ${ok}),`,
        set: Prisma.sql`iterations = 9`,
        refused: () => Object.assign(new Error('refused'), { permanent: true }),
      },
    });
    await expect(refused).rejects.toThrow('refused');
    expect(await stored(b!)).toEqual([]);
    expect(await server.db.prisma.llmCall.count({ where: { turnId: b! } })).toBe(0);
    expect(await server.db.prisma.session.findUniqueOrThrow({ where: { id: turnB.sessionId } })).toMatchObject({ name: 'w' });
    expect(await server.db.prisma.turn.findUniqueOrThrow({ where: { id: b! } })).toMatchObject({ iterations: 0, lastSeq: 0 });
  });
});
