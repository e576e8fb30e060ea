import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, registerAgent, startAgentServer, useAgentServer } from '../support/agents.js';
import { rowId } from '../../src/http/global-ids.js';
import { caller, errorCode, newUser, type Caller } from '../support/client.js';
import { CreateSessionDocument, RemQueryDocument, UsageDocument } from '../generated/graphql.js';

const env = useAgentServer();

const TOOLED = 'name: tooled\ndescription: You act.\ntools:\n  - name: action\n';

async function sql(user: Caller, query: string) {
  return (await user.data(RemQueryDocument, { query: `SQL ${query}` })).remQuery.rows as Record<string, unknown>[];
}

/** Two turns of `user` (the first with a tool call) in a new session; returns its id. */
async function converse(user: Caller, tenantPeer?: string) {
  await registerAgent(user, TOOLED);
  env.fake.enqueue(
    { toolCalls: [{ name: 'action', arguments: { type: 'note', payload: { of: tenantPeer ?? 'me' } } }], usage: { prompt_tokens: 30, completion_tokens: 5 } },
    { text: 'Noted.', usage: { prompt_tokens: 40, completion_tokens: 3 } },
    { text: 'Second answer.', usage: { prompt_tokens: 50, completion_tokens: 4 } },
  );
  const first = await chat(env.server.url, user, { content: 'Take a note', agent: 'tooled' });
  const sessionId = first.sent.session.id;
  await chat(env.server.url, user, { content: 'And again', sessionId });
  return rowId(sessionId, 'Session');
}

describe('SQL mode over the caller’s conversation', () => {
  it('reads the caller’s own messages, turns, llm_calls and agents, never another user’s, and refuses tables outside the views', async () => {
    const tenant = `t-${crypto.randomUUID()}`;
    const alice = newUser(env.server.url, tenant);
    const bob = newUser(env.server.url, tenant);
    const aliceSession = await converse(alice);
    const bobSession = await converse(bob);

    const messages = await sql(alice, 'SELECT session_id, seq, message_type, content, user_id FROM messages ORDER BY seq');
    expect(messages.map((m) => m.message_type)).toEqual(['user', 'tool_call', 'tool_response', 'assistant', 'user', 'assistant']);
    expect(new Set(messages.map((m) => m.session_id))).toEqual(new Set([aliceSession]));
    expect(new Set(messages.map((m) => m.user_id))).toEqual(new Set([alice.headers['x-user-id']]));
    // p8's check, as p8 writes it.
    const tools = await sql(alice, "SELECT message_type FROM messages WHERE message_type IN ('tool_call','tool_response') ORDER BY seq");
    expect(tools).toEqual([{ message_type: 'tool_call' }, { message_type: 'tool_response' }]);
    expect(await sql(alice, `SELECT count(*)::int AS n FROM messages WHERE session_id = '${bobSession}'`)).toEqual([{ n: 0 }]);
    expect(await sql(bob, `SELECT count(*)::int AS n FROM messages WHERE session_id = '${bobSession}'`)).toEqual([{ n: 6 }]);

    const calls = await sql(
      alice,
      'SELECT c.input_tokens, c.output_tokens, t.agent, t.status FROM llm_calls c JOIN turns t ON t.id = c.turn_id ORDER BY c.input_tokens',
    );
    expect(calls).toEqual([
      { input_tokens: 30, output_tokens: 5, agent: 'tooled', status: 'COMPLETED' },
      { input_tokens: 40, output_tokens: 3, agent: 'tooled', status: 'COMPLETED' },
      { input_tokens: 50, output_tokens: 4, agent: 'tooled', status: 'COMPLETED' },
    ]);
    const [request] = await sql(alice, 'SELECT request FROM llm_calls ORDER BY created_at, iteration LIMIT 1');
    expect(JSON.parse(String(request!.request)).messages.at(-1)).toEqual({ role: 'user', content: 'Take a note' });
    expect(await sql(alice, 'SELECT DISTINCT user_id FROM agents')).toEqual([{ user_id: alice.headers['x-user-id'] }]);

    for (const table of ['approvals', 'sessions', 'turn_events', 'public.messages']) {
      const res = await alice.request(RemQueryDocument, { query: `SQL SELECT * FROM ${table}` });
      expect(res.body.data).toBeNull();
      expect(errorCode(res)).toBe(table.includes('.') ? 'FORBIDDEN' : 'QUERY_SYNTAX');
    }
  });

  it('usage: tokens, requests and latency per agent, model and day, adding up to the caller’s llm_calls', async () => {
    const user = newUser(env.server.url);
    const other = newUser(env.server.url);
    await converse(user);
    await converse(other);
    const [totals] = await sql(
      user,
      'SELECT count(*)::int AS requests, sum(input_tokens + output_tokens)::int AS tokens, sum(latency_ms)::int AS latency FROM llm_calls',
    );
    expect(totals).toMatchObject({ requests: 3, tokens: 132 });

    for (const groupBy of ['AGENT', 'MODEL', 'DAY'] as const) {
      const { usage } = await user.data(UsageDocument, { groupBy });
      const sum = (field: 'requests' | 'totalTokens' | 'totalLatencyMs') => usage.reduce((n, g) => n + g[field], 0);
      expect([sum('requests'), sum('totalTokens'), sum('totalLatencyMs')]).toEqual([totals!.requests, totals!.tokens, totals!.latency]);
      for (const group of usage) expect(group.totalTokens).toBe(group.inputTokens + group.outputTokens);
    }
    expect((await user.data(UsageDocument, { groupBy: 'AGENT' })).usage.map((g) => [g.key, g.requests, g.inputTokens])).toEqual([['tooled', 3, 120]]);
    expect((await user.data(UsageDocument, { groupBy: 'MODEL' })).usage.map((g) => g.key)).toEqual(['openai:fake-model']);
    expect((await user.data(UsageDocument, { groupBy: 'DAY' })).usage.map((g) => g.key)).toEqual([new Date().toISOString().slice(0, 10)]);
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect((await user.data(UsageDocument, { groupBy: 'DAY', since: future })).usage).toEqual([]);
    const bad = await user.request(UsageDocument, { groupBy: 'DAY', since: future, until: new Date().toISOString() });
    expect(errorCode(bad)).toBe('VALIDATION_FAILED');
  });
});

describe('the request context (p8’s context layer)', () => {
  it('carries the session’s name and metadata, and is rebuilt per call, never stored', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOLED);
    const created = await user.data(CreateSessionDocument, { input: { name: 'Trip to Lisbon', metadata: { channel: 'slack' } } });
    if (created.createSession.__typename !== 'CreateSessionSuccess') throw new Error(created.createSession.__typename);
    env.fake.enqueue({ text: 'Sure.' });
    await chat(env.server.url, user, { content: 'Plan it', agent: 'tooled', sessionId: created.createSession.session.id });
    const context = env.fake.chatRequests[0]!.body.messages[1].content as string;
    expect(context).toContain(
      `Session: ${rowId(created.createSession.session.id, 'Session')}\nSession name: Trip to Lisbon\nSession metadata: {"channel":"slack"}\nAgent: tooled`,
    );
    expect(context).not.toContain('User email');
    expect(context).not.toContain('Routing:');
    const stored = await sql(user, "SELECT count(*)::int AS n FROM messages WHERE content LIKE '%Trip to Lisbon%'");
    expect(stored).toEqual([{ n: 0 }]);
  });
});

describe('the request context with a JWT', () => {
  const SECRET = 'debugloop-suite-secret-long-enough-for-hs256';
  let jwtEnv: Awaited<ReturnType<typeof startAgentServer>>;
  beforeAll(async () => {
    jwtEnv = await startAgentServer({ AUTH_JWT_SECRET: SECRET });
  });
  afterAll(async () => {
    await jwtEnv?.server.stop();
    await jwtEnv?.fake.close();
  });

  it('carries the user’s email and display name from the token’s claims', async () => {
    const claims = { sub: 'ada', tenant_id: `t-${crypto.randomUUID()}`, email: 'ada@example.com', name: 'Ada Lovelace' };
    const token = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(new TextEncoder().encode(SECRET));
    const user = caller(jwtEnv.server.url, { authorization: `Bearer ${token}` });
    jwtEnv.fake.enqueue({ text: 'Hello Ada.' });
    await chat(jwtEnv.server.url, user, { content: 'Hi' });
    const context = jwtEnv.fake.chatRequests[0]!.body.messages[1].content as string;
    expect(context).toContain('User ID: ada\nUser email: ada@example.com\nUser name: Ada Lovelace\nSession: ');
  });
});
