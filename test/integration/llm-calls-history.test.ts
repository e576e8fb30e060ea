import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { followTurn, registerAgent, send, untilPaused, useAgentServer } from '../support/agents.js';
import { DecideApprovalDocument, TurnRecordDocument } from '../generated/graphql.js';
import { appendMessages } from '../../src/sessions/messages.js';

/**
 * A turn's llm_calls row holds its request body without the session history it carries; the history
 * is named by the session's messages and rebuilt when the body is read (engine/request-history.ts).
 * What a reader gets must be the very text the provider received, whatever happened to the session
 * since, and what a turn stores must not grow with the session.
 */
const env = useAgentServer({ SWEEP_INTERVAL_MS: '3600000', TURN_HEARTBEAT_MS: '3600000', JOB_POLL_MS: '3600000' });

// `search` makes long answers reach the model compressed (HISTORY_COMPRESS_CHARS); `action` pauses.
const ARCHIVIST = `
name: archivist
description: You look things up, and act only with approval.
tools:
  - name: search
  - name: action
    requires_approval: true
`;

/** A session of `messages` messages (every fifth answer longer than HISTORY_COMPRESS_CHARS), and its ids. */
async function sessionOf(user: Caller, messages: number): Promise<{ sessionId: string; id: string }> {
  env.fake.enqueue({ text: 'First answer.' });
  const first = await send(user, { content: 'Hello', agent: 'archivist' });
  await followTurn(env.server.url, user, first.turn.id, 0);
  const id = decodeGlobalID(first.session.id).id;
  const { prisma } = env.server.db;
  const session = await prisma.session.findUniqueOrThrow({ where: { id } });
  const rows = Array.from({ length: messages - 2 }, (_, i) => ({
    type: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: i % 10 === 9 ? `Long answer ${i}: ${'with "quotes", \\ and ünïcode\n'.repeat(20)}` : `Message ${i}: ${'a few words '.repeat(3)}`,
    agentName: null,
    metadata: {},
    isEval: false,
  }));
  await appendMessages(prisma, session, rows);
  return { sessionId: first.session.id, id };
}

/** Sends a plain turn in the session and follows it to its end. */
async function turnIn(user: Caller, sessionId: string): Promise<string> {
  env.fake.enqueue({ text: 'Another answer.' });
  const sent = await send(user, { content: 'And again', sessionId, agent: 'archivist' });
  await followTurn(env.server.url, user, sent.turn.id, 0);
  return sent.turn.id;
}

/** The request bodies of a turn's model calls as turn.llmCalls gives them. */
async function bodiesOf(user: Caller, turnId: string): Promise<string[]> {
  const calls = (await user.data(TurnRecordDocument, { id: turnId })).turn!.llmCalls!;
  return calls.map((call) => {
    expect(call.request).toEqual(JSON.parse(call.requestText!));
    return call.requestText!;
  });
}

/** What each llm_calls row of a turn (global id) stores: its bytes (body and history reference) and whether the history is a reference. */
async function storedOf(turnId: string): Promise<{ bytes: number; byReference: boolean }[]> {
  return env.server.db.prisma.$queryRaw`
    SELECT (pg_column_size(request) + COALESCE(pg_column_size(request_history), 0))::int AS bytes, request_history IS NOT NULL AS "byReference"
    FROM llm_calls WHERE turn_id = ${decodeGlobalID(turnId).id}::uuid ORDER BY iteration`;
}

/** Gives the session's older answers a compaction breadcrumb, as dreaming/compact.ts writes it. */
async function compact(sessionId: string, keep: number): Promise<void> {
  await env.server.db.prisma.$executeRaw`
    UPDATE messages m SET metadata = m.metadata || jsonb_build_object('compaction', jsonb_build_object('moment', 'm-1',
      'breadcrumb', '[Earlier: ' || left(m.content, 20) || '… → REM LOOKUP m-1]'))
    WHERE m.session_id = ${sessionId}::uuid AND m.type = 'assistant'
      AND m.seq < (SELECT max(seq) FROM messages WHERE session_id = ${sessionId}::uuid) - ${keep}`;
}

describe('a model call’s stored request', () => {
  it('is rebuilt exactly as the provider received it, deep in a session and after a later compaction', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, ARCHIVIST);
    const { sessionId, id } = await sessionOf(user, 200);
    const turnId = await turnIn(user, sessionId);
    const sent = env.fake.chatRequests.at(-1)!.raw;
    expect(sent).toContain('Message truncated - REM LOOKUP');
    expect(await bodiesOf(user, turnId)).toEqual([sent]);
    expect(await storedOf(turnId)).toMatchObject([{ byReference: true }]);

    await compact(id, 10);
    expect(await bodiesOf(user, turnId)).toEqual([sent]);

    // The next turn sends breadcrumbs: they are kept as sent, the rest by reference.
    const next = await turnIn(user, sessionId);
    const afterCompaction = env.fake.chatRequests.at(-1)!.raw;
    expect(afterCompaction).toContain('REM LOOKUP m-1]');
    expect(await bodiesOf(user, next)).toEqual([afterCompaction]);
    expect(await storedOf(next)).toMatchObject([{ byReference: true }]);
  });

  it('is rebuilt for each call of a turn that paused for approval and resumed', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, ARCHIVIST);
    const { sessionId } = await sessionOf(user, 60);
    env.fake.enqueue({ toolCalls: [{ id: 'a1', name: 'action', arguments: { type: 'deploy' } }] });
    const sent = await send(user, { content: 'deploy it', sessionId, agent: 'archivist' });
    const paused = await untilPaused(env.server.url, user, sent.turn.id);
    const needed = paused.find((e) => e.__typename === 'ApprovalNeededEvent') as { approvalId: string };
    env.fake.enqueue({ text: 'Deployed.' });
    await user.data(DecideApprovalDocument, { id: needed.approvalId, approve: true });
    await followTurn(env.server.url, user, sent.turn.id, 0);

    const received = env.fake.chatRequests.slice(-2).map((r) => r.raw);
    expect(await bodiesOf(user, sent.turn.id)).toEqual(received);
    expect(await storedOf(sent.turn.id)).toMatchObject([{ byReference: true }, { byReference: true }]);
  });

  it('takes as many bytes at message 200 as at message 20', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, ARCHIVIST);
    const [short, long] = [await sessionOf(user, 20), await sessionOf(user, 200)];
    const [atShort, atLong] = [await turnIn(user, short.sessionId), await turnIn(user, long.sessionId)];
    const [[sentShort], [sentLong]] = [await bodiesOf(user, atShort), await bodiesOf(user, atLong)];
    // The bodies as sent grow with the session; what is stored does not.
    expect(sentLong!.length).toBeGreaterThan(5 * sentShort!.length);
    const [[storedShort], [storedLong]] = [await storedOf(atShort), await storedOf(atLong)];
    expect(Math.abs(storedLong!.bytes - storedShort!.bytes)).toBeLessThan(64);
  });

  it('is stored whole without a history to refer to, and fails loudly rather than rebuild a different body', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, ARCHIVIST);
    const first = await sessionOf(user, 2);
    // The first turn had no history to refer to.
    const [firstTurn] = await env.server.db.prisma.turn.findMany({ where: { sessionId: first.id } });
    expect(await storedOf(encodeGlobalID('Turn', firstTurn!.id))).toMatchObject([{ byReference: false }]);

    const { sessionId, id } = await sessionOf(user, 30);
    const turnId = await turnIn(user, sessionId);
    // A session whose referenced messages were changed behind the store's back (nothing in remgraph does).
    await env.server.db.prisma.$executeRaw`UPDATE messages SET content = content || '!' WHERE session_id = ${id}::uuid AND seq = 5`;
    const res = await user.request(TurnRecordDocument, { id: turnId });
    expect(res.body.errors?.length).toBeGreaterThan(0);
    expect(res.body.data?.turn?.llmCalls?.[0]?.requestText ?? null).toBeNull();
  });
});
