import { decodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { followTurn, send, useAgentServer } from '../support/agents.js';
import { explainAnalyzed, type StatementReads } from '../support/explain.js';
import { appendMessages } from '../../src/sessions/messages.js';

/**
 * A turn's cost depends on what it sends to the model, not on how long the conversation has been
 * (issue 41): every statement a plain turn runs reads as many rows, and about as many buffers, in a
 * session of 10,000 messages (and 5,000 turns) as in one of 1,000. The shorter session is longer
 * than the history a turn reads at most (its newest 500 messages), so both turns read the same
 * history and anything else that grows with the session shows. Each statement runs under EXPLAIN
 * (ANALYZE, BUFFERS) in a rolled-back transaction just before it runs for real.
 */
const SHORT = 1_000;
const LONG = 10_000;
// A B-tree one level deeper, and the heap pages a newer run of rows sits on, cost a few buffers more.
const BUFFER_SLACK = 8;

interface Seen {
  text: string;
  reads: StatementReads;
}
let capturing: Seen[] | null = null;

const env = useAgentServer(
  { SWEEP_INTERVAL_MS: '3600000', TURN_HEARTBEAT_MS: '3600000', JOB_POLL_MS: '3600000', EVENT_FLUSH_MS: '5000' },
  {
    beforeStatement: async (text, params) => {
      if (capturing) capturing.push({ text, reads: await explainAnalyzed(env.server.db.prisma, text, params) });
    },
  },
);

/** A session of `messages` messages (half of them answers, one turn each), its user, and its id. */
async function sessionOf(messages: number): Promise<{ user: Caller; sessionId: string }> {
  const user = newUser(env.server.url);
  env.fake.enqueue({ text: 'First answer.' });
  const first = await send(user, { content: 'Hello' });
  await followTurn(env.server.url, user, first.turn.id, 0);
  const id = decodeGlobalID(first.session.id).id;
  const { prisma } = env.server.db;
  const session = await prisma.session.findUniqueOrThrow({ where: { id } });
  const rows = Array.from({ length: messages - 2 }, (_, i) => ({
    type: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `Message ${i}: ${'a few words of conversation '.repeat(3)}`,
    agentName: null,
    metadata: {},
    isEval: false,
  }));
  await appendMessages(prisma, session, rows);
  await prisma.$executeRaw`
    INSERT INTO turns (id, root_id, session_id, agent, agent_path, status, tenant_id, user_id, started_at, finished_at)
    SELECT u, u, ${id}::uuid, 'general', ARRAY['general'], 'COMPLETED', ${session.tenantId}, ${session.userId}, now() - interval '1 day', now() - interval '1 day'
    FROM (SELECT gen_random_uuid() AS u FROM generate_series(1, ${messages / 2 - 1}::int)) AS g`;
  await prisma.$executeRawUnsafe('ANALYZE messages, turns');
  return { user, sessionId: first.session.id };
}

/** The statements of one plain turn in the session, with what each read. */
async function turnIn({ user, sessionId }: { user: Caller; sessionId: string }): Promise<Seen[]> {
  env.fake.enqueue({ text: 'Another answer.' });
  capturing = [];
  try {
    const sent = await send(user, { content: 'And again', sessionId });
    const events = await followTurn(env.server.url, user, sent.turn.id, 0);
    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
    return capturing;
  } finally {
    capturing = null;
  }
}

const squash = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 120);

describe('a plain turn in a long session', () => {
  it('runs statements that read no more in a session of 10,000 messages than in one of 1,000', async () => {
    const short = await sessionOf(SHORT);
    const long = await sessionOf(LONG);
    // Once each first, so that both measured turns find the same warm caches and statistics.
    await turnIn(short);
    await turnIn(long);
    const inShort = await turnIn(short);
    const inLong = await turnIn(long);

    expect(inLong.map((s) => squash(s.text))).toEqual(inShort.map((s) => squash(s.text)));
    expect(inLong.length).toBeGreaterThan(0);
    for (const [i, statement] of inLong.entries()) {
      const before = inShort[i]!.reads;
      const report = `${squash(statement.text)}\nat ${SHORT} messages: ${before.rowsRead} rows, ${before.buffers} buffers\n${before.shape}\nat ${LONG} messages: ${statement.reads.rowsRead} rows, ${statement.reads.buffers} buffers\n${statement.reads.shape}`;
      // quota_starts, small enough to be scanned whole, holds every user's turns in the rate window:
      // the turn measured second also reads the first one's, whatever the session's length.
      const sessionRows = (reads: StatementReads) => reads.rowsRead - (reads.rowsByTable['quota_starts'] ?? 0);
      expect(sessionRows(statement.reads), report).toBeLessThanOrEqual(sessionRows(before));
      expect(statement.reads.buffers, report).toBeLessThanOrEqual(before.buffers + BUFFER_SLACK);
    }
  });
});
