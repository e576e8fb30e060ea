import { encodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { caller, newUser, type Caller } from '../support/client.js';
import { chat, followTurn, registerAgent, useAgentServer } from '../support/agents.js';
import { CompareTurnsDocument, ForkedSessionDocument, ForkSessionDocument, ReplayTurnDocument, SessionsDocument } from '../generated/graphql.js';

const env = useAgentServer();

const TOOL_AGENT = `
name: tool-agent
description: You call tools when asked.
tools:
  - name: action
  - name: register_metadata
max_iterations: 3
`;

const MISSING = '00000000-0000-4000-8000-000000000000';

/** A session with two exchanges; returns its turns and messages. */
async function conversation(user: Caller) {
  env.fake.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
  const first = await chat(env.server.url, user, { content: 'First question' });
  const second = await chat(env.server.url, user, { content: 'Second question', sessionId: first.sent.session.id });
  const messages = await messagesOf(user, first.sent.session.id);
  return { sessionId: first.sent.session.id, first, second, messages };
}

async function messagesOf(user: Caller, sessionId: string) {
  return (await user.data(ForkedSessionDocument, { id: sessionId })).session!.messages.edges.map((e) => e.node);
}

async function sessionCount(user: Caller) {
  return (await user.data(SessionsDocument, { first: 100 })).sessions.totalCount;
}

describe('forkSession', () => {
  it('copies the messages up to and including the chosen one into a new session that records its lineage', async () => {
    const user = newUser(env.server.url);
    const { sessionId, messages } = await conversation(user);
    expect(messages.map((m) => m.content)).toEqual(['First question', 'First answer.', 'Second question', 'Second answer.']);

    const forked = (await user.data(ForkSessionDocument, { sessionId, atMessageId: messages[2]!.id })).forkSession;
    if (forked.__typename !== 'ForkSessionSuccess') throw new Error(JSON.stringify(forked));
    expect(forked.session.id).not.toBe(sessionId);
    expect(forked.session.forkedFrom).toEqual({ id: sessionId });
    expect(forked.session.forkedAtMessageId).toBe(messages[2]!.id);
    const copied = forked.session.messages.edges.map((e) => e.node);
    expect(copied.map((m) => [m.seq, m.type, m.content])).toEqual([
      [1, 'user', 'First question'],
      [2, 'assistant', 'First answer.'],
      [3, 'user', 'Second question'],
    ]);
    expect(copied.map((m) => m.id)).not.toContain(messages[0]!.id);

    // The source is unchanged, and the fork is the caller's to continue.
    const source = (await user.data(ForkedSessionDocument, { id: sessionId })).session!;
    expect(source.forkedFrom).toBeNull();
    expect(source.forks.edges.map((e) => e.node.id)).toEqual([forked.session.id]);
    expect(forked.session.forks.edges).toEqual([]);
    expect(source.messages.edges).toHaveLength(4);
    env.fake.enqueue({ text: 'Another second answer.' });
    const next = await chat(env.server.url, user, { content: 'Go on', sessionId: forked.session.id });
    expect(next.events.at(-1)).toMatchObject({ status: 'COMPLETED' });
    expect(env.fake.chatRequests.at(-1)!.body.messages.filter((m: any) => m.role !== 'system')).toEqual([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'Second question' },
      { role: 'user', content: 'Go on' },
    ]);
  });

  it('refuses unknown ids, another user’s session and a message of another session, storing nothing', async () => {
    const alice = newUser(env.server.url);
    const mallory = newUser(env.server.url);
    const { sessionId, messages } = await conversation(alice);
    env.fake.enqueue({ text: 'Other answer.' });
    const other = await chat(env.server.url, alice, { content: 'Elsewhere' });
    const [otherMessage] = await messagesOf(alice, other.sent.session.id);
    const before = await sessionCount(alice);

    const fork = async (user: Caller, s: string, m: string) => (await user.data(ForkSessionDocument, { sessionId: s, atMessageId: m })).forkSession;
    expect(await fork(alice, sessionId, otherMessage!.id)).toMatchObject({ __typename: 'ValidationError', issues: [{ path: ['atMessageId'] }] });
    expect(await fork(alice, encodeGlobalID('Session', MISSING), messages[0]!.id)).toMatchObject({ __typename: 'NotFoundError' });
    expect(await fork(alice, sessionId, encodeGlobalID('Message', MISSING))).toMatchObject({ __typename: 'NotFoundError' });
    expect(await fork(mallory, sessionId, messages[0]!.id)).toMatchObject({ __typename: 'NotFoundError' });
    expect(await fork(alice, 'not an id', messages[0]!.id)).toMatchObject({ __typename: 'ValidationError' });
    const anonymous = caller(env.server.url, { 'x-tenant-id': alice.headers['x-tenant-id']! });
    expect(await fork(anonymous, sessionId, messages[0]!.id)).toMatchObject({ __typename: 'ForbiddenError' });
    expect(await sessionCount(alice)).toBe(before);
    expect(await sessionCount(mallory)).toBe(0);
  });
});

describe('replayTurn and compareTurns', () => {
  it('replays a turn with another model on a fork and names what changed', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    env.fake.enqueue({ text: 'Earlier answer.' });
    const earlier = await chat(env.server.url, user, { content: 'Earlier question', agent: 'tool-agent' });
    const sessionId = earlier.sent.session.id;
    env.fake.enqueue(
      {
        toolCalls: [{ id: 'c1', name: 'action', arguments: { type: 'observation', payload: { level: 1 } } }],
        usage: { prompt_tokens: 10, completion_tokens: 2 },
      },
      { text: 'Level one.\nAll good.', usage: { prompt_tokens: 20, completion_tokens: 4 } },
    );
    const original = await chat(env.server.url, user, { content: 'Observe', sessionId, agent: 'tool-agent' });
    expect(original.turn.status).toBe('COMPLETED');

    env.fake.enqueue(
      {
        toolCalls: [{ id: 'c2', name: 'action', arguments: { type: 'observation', payload: { level: 2 } } }],
        usage: { prompt_tokens: 11, completion_tokens: 3 },
      },
      { text: 'Level two.\nAll good.', usage: { prompt_tokens: 21, completion_tokens: 5 } },
    );
    const sentBefore = env.fake.chatRequests.length;
    const replayed = (
      await user.data(ReplayTurnDocument, {
        turnId: original.sent.turn.id,
        overrides: { model: 'openai:other-model', temperature: 0.3, systemPromptSuffix: 'Be brief.' },
      })
    ).replayTurn;
    if (replayed.__typename !== 'SendMessagePayload') throw new Error(JSON.stringify(replayed));
    expect(replayed.session.id).not.toBe(sessionId);
    expect(replayed.session.forkedFrom).toEqual({ id: sessionId });
    expect(replayed.session.forkedAtMessageId).toBe((await messagesOf(user, sessionId))[1]!.id);
    expect(replayed.turn).toMatchObject({ agent: 'tool-agent', agentVersion: 1, model: 'openai:other-model' });
    expect(replayed.userMessage).toMatchObject({ seq: 3, content: 'Observe' });
    const events = await followTurn(env.server.url, user, replayed.turn.id);
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'Level two.\nAll good.' });

    // The same history, the same message, with the overrides.
    const request = env.fake.chatRequests[sentBefore]!.body;
    expect(request).toMatchObject({ model: 'other-model', temperature: 0.3 });
    expect(request.messages[0].content).toContain('Be brief.');
    expect(request.messages.filter((m: any) => m.role !== 'system')).toEqual(
      env.fake.chatRequests[sentBefore - 2]!.body.messages.filter((m: any) => m.role !== 'system'),
    );
    const fork = (await user.data(ForkedSessionDocument, { id: replayed.session.id })).session!;
    expect(fork.messages.edges.map((e) => e.node.type)).toEqual(['user', 'assistant', 'user', 'tool_call', 'observation', 'tool_response', 'assistant']);
    expect(fork.messages.edges.map((e) => e.node.content).slice(0, 3)).toEqual(['Earlier question', 'Earlier answer.', 'Observe']);

    const { compareTurns } = await user.data(CompareTurnsDocument, { a: original.sent.turn.id, b: replayed.turn.id });
    expect(compareTurns.textChanged).toBe(true);
    expect(compareTurns.text).toEqual([
      { op: 'REMOVED', text: 'Level one.' },
      { op: 'ADDED', text: 'Level two.' },
      { op: 'SAME', text: 'All good.' },
    ]);
    expect(compareTurns.toolCalls).toEqual([
      {
        op: 'CHANGED',
        name: 'action',
        changedArguments: ['payload'],
        argumentsA: { type: 'observation', payload: { level: 1 } },
        argumentsB: { type: 'observation', payload: { level: 2 } },
        resultChanged: false,
        resultA: { recorded: true },
        resultB: { recorded: true },
      },
    ]);
    expect(compareTurns.sources).toEqual({ added: [], removed: [] });
    expect(compareTurns.a).toMatchObject({
      turn: { id: original.sent.turn.id },
      text: 'Level one.\nAll good.',
      usage: { inputTokens: 30, outputTokens: 6 },
      modelCalls: 2,
      models: ['openai:fake-model', 'openai:fake-model'],
    });
    expect(compareTurns.b).toMatchObject({
      turn: { id: replayed.turn.id },
      usage: { inputTokens: 32, outputTokens: 8 },
      modelCalls: 2,
      models: ['openai:other-model', 'openai:other-model'],
    });
    expect(compareTurns.a.latencyMs).toBeGreaterThanOrEqual(0);
    expect(compareTurns.b.latencyMs).toBeGreaterThanOrEqual(0);

    // A turn compared with itself changes nothing.
    const same = (await user.data(CompareTurnsDocument, { a: replayed.turn.id, b: replayed.turn.id })).compareTurns;
    expect(same.textChanged).toBe(false);
    expect(same.text.every((line) => line.op === 'SAME')).toBe(true);
    expect(same.toolCalls.map((c) => [c.op, c.changedArguments])).toEqual([['SAME', []]]);
  });

  it('replays the first turn of a session on an empty fork, at the agent version asked for', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    await registerAgent(user, TOOL_AGENT.replace('You call tools when asked.', 'You call tools when told.'));
    env.fake.enqueue({ text: 'One.' }, { text: 'Uno.' });
    const original = await chat(env.server.url, user, { content: 'Count', agent: 'tool-agent' });
    expect(env.fake.chatRequests.at(-1)!.body.messages[0].content).toContain('You call tools when told.');
    const replayed = (await user.data(ReplayTurnDocument, { turnId: original.sent.turn.id, overrides: { agentVersion: 1 } })).replayTurn;
    if (replayed.__typename !== 'SendMessagePayload') throw new Error(JSON.stringify(replayed));
    expect(replayed.turn).toMatchObject({ agentVersion: 1, model: 'openai:fake-model' });
    expect(replayed.session.forkedAtMessageId).toBeNull();
    expect(replayed.userMessage).toMatchObject({ seq: 1, content: 'Count' });
    await followTurn(env.server.url, user, replayed.turn.id);
    expect(env.fake.chatRequests.at(-1)!.body.messages[0].content).toContain('You call tools when asked.');
  });

  it('refuses bad overrides, unknown and invisible turns with typed errors, storing nothing', async () => {
    const alice = newUser(env.server.url);
    const mallory = newUser(env.server.url);
    const { second } = await conversation(alice);
    const turnId = second.sent.turn.id;
    const before = await sessionCount(alice);

    const replay = async (user: Caller, id: string, overrides?: Record<string, unknown>) =>
      (await user.data(ReplayTurnDocument, { turnId: id, overrides })).replayTurn;
    expect(await replay(alice, turnId, { model: 'nowhere:model' })).toMatchObject({
      __typename: 'ValidationError',
      issues: [{ path: ['overrides', 'model'] }],
    });
    expect(await replay(alice, turnId, { agentVersion: 3 })).toMatchObject({
      __typename: 'ValidationError',
      issues: [{ path: ['overrides', 'agentVersion'] }],
    });
    expect(await replay(alice, turnId, { temperature: 2.5 })).toMatchObject({
      __typename: 'ValidationError',
      issues: [{ path: ['overrides', 'temperature'] }],
    });
    expect(await replay(alice, turnId, { systemPromptSuffix: 'x'.repeat(4001) })).toMatchObject({ __typename: 'ValidationError' });
    expect(await replay(alice, encodeGlobalID('Turn', MISSING))).toMatchObject({ __typename: 'NotFoundError' });
    expect(await replay(mallory, turnId)).toMatchObject({ __typename: 'NotFoundError' });
    expect(await replay(caller(env.server.url, { 'x-tenant-id': alice.headers['x-tenant-id']! }), turnId)).toMatchObject({ __typename: 'ForbiddenError' });
    expect(await sessionCount(alice)).toBe(before);
    expect(await sessionCount(mallory)).toBe(0);

    const compare = await mallory.request(CompareTurnsDocument, { a: turnId, b: turnId });
    expect(compare.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const unknown = await alice.request(CompareTurnsDocument, { a: turnId, b: encodeGlobalID('Turn', MISSING) });
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});
