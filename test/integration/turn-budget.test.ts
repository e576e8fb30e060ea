import { setTimeout as sleep } from 'node:timers/promises';
import { decodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { collect, newUser, wsClient } from '../support/client.js';
import { followTurn, send, useAgentServer } from '../support/agents.js';
import { backend } from '../support/server.js';
import { TurnEventsDocument } from '../generated/graphql.js';
import { encodingsLoaded } from '../../src/llm/token-count.js';

/**
 * What a plain turn may cost the database (issue 21): the default agent, a short answer and no tool
 * call, on a warm session (one turn already done), from sendMessage until the final event reached
 * the client and the server went quiet. Counted as the test server's query observer sees them:
 * each Prisma operation (model query or raw SQL), each direct statement, and a BEGIN and a COMMIT
 * for each transaction through Prisma. The budget is the count measured when it was set, so it can
 * only go down: lower it when a change saves a statement.
 *
 * Measured when set: 12 statements, 11 of them through Prisma's client; then 10, 5 through Prisma;
 * then 6, none through Prisma; then 5, 4. Now (the same on PGlite and PostgreSQL): 3 statements.
 *   sendMessage:  the session; then one statement that admits the turn (the quota's figures and
 *                 the session's active turn), stores it with the user message, and reads the
 *                 turn's context (the profile entity, recent moments and the history)
 *   the run:      nothing more before the model call
 *   turnEvents:   nothing: the turn runs in this process, which checks it visible from its start row
 *   outcome:      messages + session + turn + the events + the model call's llm_calls row + last
 *                 seq, in one statement (no transaction)
 * Nor may it load a tokenizer: a short conversation fits the context budgets at its ceiling (a byte
 * per token), so nothing needs counting exactly, and a tokenizer holds about 20 MB of heap.
 */
const BUDGET = { pglite: { statements: 3, viaPrisma: 0 }, postgres: { statements: 3, viaPrisma: 0 } };

interface Statement {
  /** `prisma Turn.findFirst`, `prisma $queryRaw: WITH …` or `sql: SELECT …`: where it came from and what it is. */
  label: string;
  viaPrisma: boolean;
}
const seen: Statement[] = [];
let counting = false;
let lastAt = 0;

const squash = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 90);

// Background work that would land in the window is pushed far away: the sweep, the heartbeat, job
// polling. Events stay in memory until the turn's final commit (the longest flush window), so that
// how many flushes a stream takes, which depends on timing, is not counted.
const env = useAgentServer(
  { SWEEP_INTERVAL_MS: '3600000', TURN_HEARTBEAT_MS: '3600000', JOB_POLL_MS: '3600000', EVENT_FLUSH_MS: '5000' },
  {
    observe: ({ model, operation, sql }) => {
      lastAt = Date.now();
      if (!counting) return;
      if (operation === 'sql') seen.push({ label: `sql: ${squash(sql ?? '')}`, viaPrisma: false });
      else if (operation === '$transaction')
        seen.push({ label: 'prisma $transaction: BEGIN', viaPrisma: true }, { label: 'prisma $transaction: COMMIT', viaPrisma: true });
      else seen.push({ label: model ? `prisma ${model}.${operation}` : `prisma ${operation}: ${squash(sql ?? '')}`, viaPrisma: true });
    },
  },
);

/** The statements grouped by label, most frequent first: what a failure prints. */
function breakdown(statements: Statement[]): string {
  const counts = new Map<string, number>();
  for (const s of statements) counts.set(s.label, (counts.get(s.label) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([label, n]) => `${n} × ${label}`)
    .join('\n');
}

describe('a plain turn on a warm session', () => {
  it('stays within its database budget and records its one model call once', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'First answer.' });
    const first = await send(user, { content: 'Hello' });
    await followTurn(env.server.url, user, first.turn.id, 0);
    const sessionId = first.session.id;
    const callsBefore = env.fake.chatRequests.length;

    // The client subscribes (after: 0, as a chat UI does) while the model is held, so the turn's
    // events come from the hub however busy the machine is; the answer streams in a few tokens.
    const hold = env.fake.holdNext('/v1/chat/completions');
    env.fake.enqueue({ text: ['Second ', 'answer', '.'], delayMs: 20 });
    // The start-up maintenance sweep runs once however far its interval is pushed; on a loaded
    // machine (and PostgreSQL's database shared by every suite) it ended inside the window once.
    while (Date.now() - lastAt < 1000) await sleep(50);
    counting = true;
    const sent = await send(user, { content: 'And again', sessionId });
    const client = wsClient(env.server.url, user.headers);
    const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
    const sub = collect(client, TurnEventsDocument, { turnId: sent.turn.id, after: 0 });
    await Promise.all([connected, hold.reached]);
    await sleep(100);
    hold.release();
    const events = (await sub.done).map((item) => item.data!.turnEvents);
    await client.dispose();
    // Anything the server still does for the turn after its final event counts too.
    while (Date.now() - lastAt < 300) await sleep(50);
    counting = false;

    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
    const budget = BUDGET[backend()];
    const report = `${seen.length} statements (${seen.filter((s) => s.viaPrisma).length} through Prisma's client):\n${breakdown(seen)}`;
    expect(seen.length, report).toBeLessThanOrEqual(budget.statements);
    expect(seen.filter((s) => s.viaPrisma).length, report).toBeLessThanOrEqual(budget.viaPrisma);

    expect(encodingsLoaded(), 'tokenizers loaded by two plain turns').toEqual([]);

    const modelCalls = env.fake.chatRequests.length - callsBefore;
    expect(modelCalls).toBe(1);
    expect(await env.server.db.prisma.llmCall.count({ where: { turnId: decodeGlobalID(sent.turn.id).id } })).toBe(modelCalls);
  });
});

describe('a follower that comes after the turn ended', () => {
  it('reads nothing from the database: the turn and its events are still in memory', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: ['A ', 'quick ', 'answer.'] });
    const sent = await send(user, { content: 'Be quick' });
    const live = await followTurn(env.server.url, user, sent.turn.id, 0);
    // Whatever the server still does after the turn (none of it the follower's) is done first.
    while (Date.now() - lastAt < 300) await sleep(50);

    counting = true;
    seen.length = 0;
    const late = await followTurn(env.server.url, user, sent.turn.id, 0);
    counting = false;

    expect(late).toEqual(live);
    expect(late.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
    expect(seen, breakdown(seen)).toHaveLength(0);
  });
});
