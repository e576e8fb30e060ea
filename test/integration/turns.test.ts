import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { collect, errorCode, newUser, wsClient } from '../support/client.js';
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
import {
  CancelTurnDocument,
  CreateSessionDocument,
  DeleteSessionDocument,
  RegenerateDocument,
  SendMessageDocument,
  SessionEventsDocument,
  TurnDocument,
  TurnEventsDocument,
  TurnUsageDocument,
  ViewerDocument,
} from '../generated/graphql.js';

const env = useAgentServer();

const TOOL_AGENT = `
name: tool-agent
description: You call tools when asked.
tools:
  - name: action
  - name: register_metadata
max_iterations: 3
`;

describe('a chat turn', () => {
  it('streams a plain answer and stores it with usage', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Hello there, how can I help?', usage: { prompt_tokens: 42, completion_tokens: 7 } });
    const { sent, events, turn } = await chat(env.server.url, user, { content: 'Hi!' });

    expect(sent.turn.status).toBe('RUNNING');
    expect(sent.userMessage).toMatchObject({ seq: 1, content: 'Hi!' });
    expect(shape(events)).toEqual(['content*', 'final']);
    expectGapFreeSeqs(events);
    expect(contentOf(events)).toBe('Hello there, how can I help?');
    expect(events.at(-1)).toMatchObject({
      status: 'COMPLETED',
      content: 'Hello there, how can I help?',
      usage: { inputTokens: 42, outputTokens: 7, requests: 1 },
    });

    expect(turn).toMatchObject({ status: 'COMPLETED', iterations: 1, agent: 'general', model: 'openai:fake-model' });
    expect(turn.finalMessage).toMatchObject({
      content: 'Hello there, how can I help?',
      inputTokens: 42,
      outputTokens: 7,
      model: 'openai:fake-model',
      agentName: 'general',
    });
    expect(turn.finalMessage!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(turn.session.messages.edges.map((e) => e.node.type)).toEqual(['user', 'assistant']);
    expect(turn.events).toEqual(events);

    const request = env.fake.chatRequests[0]!.body;
    expect(request.stream).toBe(true);
    expect(request.stream_options).toEqual({ include_usage: true });
    expect(request.messages[0].role).toBe('system');
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Hi!' });
    const calls = await env.server.db.prisma.llmCall.findMany({
      where: {
        session: { turns: { some: {} } },
        turnId: (await env.server.db.prisma.turn.findFirst({ where: { finalMessage: { content: 'Hello there, how can I help?' } } }))!.id,
      },
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ provider: 'openai', model: 'fake-model', inputTokens: 42, outputTokens: 7, finishReason: 'stop' });
  });

  it('names a session from its first message, whether sendMessage or createSession made it', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'ok' }, { text: 'ok' }, { text: 'ok' }, { text: 'ok' });
    const fresh = await chat(env.server.url, user, { content: '  Plan   the offsite\nfor the whole team' });
    expect(fresh.sent.session.name).toBe('Plan the offsite');

    const created = await user.data(CreateSessionDocument, { input: {} });
    if (created.createSession.__typename !== 'CreateSessionSuccess') throw new Error(JSON.stringify(created));
    const unnamed = created.createSession.session;
    expect(unnamed.name).toBe('New session');
    const first = await chat(env.server.url, user, { sessionId: unnamed.id, content: `Budget review ${'for Q3 '.repeat(12)}` });
    expect(first.sent.session.name).toBe(`Budget review ${'for Q3 '.repeat(12)}`.slice(0, 59).trimEnd() + '…');
    // Only the first message names it.
    const second = await chat(env.server.url, user, { sessionId: unnamed.id, content: 'Something else' });
    expect(second.sent.session.name).toBe(first.sent.session.name);

    const named = await user.data(CreateSessionDocument, { input: { name: 'Kept' } });
    if (named.createSession.__typename !== 'CreateSessionSuccess') throw new Error(JSON.stringify(named));
    const kept = await chat(env.server.url, user, { sessionId: named.createSession.session.id, content: 'Hello' });
    expect(kept.sent.session.name).toBe('Kept');
  });

  it('runs one tool call and continues to the answer', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'call_a', name: 'action', arguments: { type: 'observation', payload: { confidence: 0.8 } } }] }, { text: 'Noted.' });
    const { events, turn } = await chat(env.server.url, user, { content: 'observe', agent: 'tool-agent' });
    expect(shape(events)).toEqual(['tool_call', 'action', 'tool_result', 'content*', 'final']);
    expectGapFreeSeqs(events);
    expect(events[0]).toMatchObject({ toolCallId: 'call_a', name: 'action', arguments: { type: 'observation', payload: { confidence: 0.8 } }, iteration: 1 });
    expect(events[1]).toMatchObject({ actionType: 'observation', payload: { confidence: 0.8 } });
    expect(events[2]).toMatchObject({ toolCallId: 'call_a', isError: false, result: { recorded: true } });
    expect(turn.session.messages.edges.map((e) => e.node.type)).toEqual(['user', 'tool_call', 'observation', 'tool_response', 'assistant']);
    expect(turn.session.messages.edges[3]!.node).toMatchObject({ toolCallId: 'call_a', toolName: 'action' });
    expect(turn.toolCallsLog).toEqual([
      {
        tool: 'action',
        toolCallId: 'call_a',
        arguments: { type: 'observation', payload: { confidence: 0.8 } },
        result: { recorded: true },
        isError: false,
        iteration: 1,
      },
    ]);
    // The model saw its tool call and the tool's result on the second call, and only declared tools.
    const second = env.fake.chatRequests[1]!.body;
    expect(second.messages.at(-2).tool_calls[0].id).toBe('call_a');
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_a' });
    expect(env.fake.chatRequests[0]!.body.tools.map((t: any) => t.function.name)).toEqual(['action', 'register_metadata']);
  });

  it('runs on the model viewer.defaultModel names when none is given', async () => {
    const user = newUser(env.server.url);
    const { viewer } = await user.data(ViewerDocument);
    expect(viewer.defaultModel).toBe('openai:fake-model');
    env.fake.enqueue({ text: 'Hi.' });
    const { turn } = await chat(env.server.url, user, { content: 'Hello' });
    expect(turn.model).toBe(viewer.defaultModel);
    expect(env.fake.chatRequests[0]!.body.model).toBe('fake-model');
  });

  it('runs parallel tool calls and reports results in call order', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'action', arguments: { type: 'progress' } },
          { id: 'c2', name: 'register_metadata', arguments: { confidence: 0.5, notes: 'n' } },
        ],
      },
      { text: 'Both done.' },
    );
    const { events, turn } = await chat(env.server.url, user, { content: 'both', agent: 'tool-agent' });
    expect(shape(events)).toEqual(['tool_call', 'tool_call', 'action', 'action', 'tool_result', 'tool_result', 'content*', 'final']);
    expect(events.filter((e) => e.__typename === 'ToolResultEvent').map((e) => (e as any).toolCallId)).toEqual(['c1', 'c2']);
    expect(turn.toolCallsLog).toHaveLength(2);
    expect(turn.session.messages.edges.map((e) => e.node.type)).toEqual(['user', 'tool_call', 'tool_response', 'tool_response', 'assistant']);
  });

  it('returns a tool failure to the model and carries on', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'bad', name: 'delete_everything', arguments: {} }] }, { text: 'That tool is not available.' });
    const { events, turn } = await chat(env.server.url, user, { content: 'go', agent: 'tool-agent' });
    expect(shape(events)).toEqual(['tool_call', 'tool_result', 'content*', 'final']);
    expect(events[1]).toMatchObject({ isError: true, result: { error: 'Tool "delete_everything" is not available to agent tool-agent' } });
    expect(turn.status).toBe('COMPLETED');
    expect(JSON.parse(env.fake.chatRequests[1]!.body.messages.at(-1).content)).toEqual({
      error: 'Tool "delete_everything" is not available to agent tool-agent',
    });
  });

  it('turns malformed tool arguments into {} and returns the validation error to the model', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'm', name: 'action', arguments: '{"type": "obs' }] }, { text: 'Sorry.' });
    const { events, turn } = await chat(env.server.url, user, { content: 'go', agent: 'tool-agent' });
    expect(shape(events)).toEqual(['tool_call', 'tool_result', 'content*', 'final']);
    expect(events[0]).toMatchObject({ arguments: '{"type": "obs' });
    expect((events[1] as any).result.error).toBe('Invalid arguments for action: type: Invalid input: expected string, received undefined');
    expect(turn.status).toBe('COMPLETED');
  });

  it('stops at max_iterations', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT.replace('max_iterations: 3', 'max_iterations: 2'));
    env.fake.enqueue(
      { toolCalls: [{ id: 'i1', name: 'action', arguments: { type: 'a' } }] },
      { toolCalls: [{ id: 'i2', name: 'action', arguments: { type: 'b' } }] },
    );
    const { events, turn } = await chat(env.server.url, user, { content: 'loop', agent: 'tool-agent' });
    expect(shape(events)).toEqual(['tool_call', 'action', 'tool_result', 'tool_call', 'action', 'tool_result', 'final']);
    expect(events.at(-1)).toMatchObject({ status: 'MAX_ITERATIONS' });
    expect(turn).toMatchObject({ status: 'MAX_ITERATIONS', iterations: 2, error: { code: 'MAX_ITERATIONS' } });
  });

  it('ends with ERROR when the model keeps failing, keeping the user message', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue(...Array.from({ length: 3 }, () => ({ status: 500, error: { message: 'upstream exploded' } })));
    const { events, turn } = await chat(env.server.url, user, { content: 'hello?' });
    expect(shape(events)).toEqual(['error', 'final']);
    expect(events[0]).toMatchObject({ code: 'MODEL_ERROR' });
    expect((events[0] as any).message).toMatch(/500.*upstream exploded/);
    expect(events[1]).toMatchObject({ status: 'ERROR', content: null });
    expect(turn).toMatchObject({ status: 'ERROR', error: { code: 'MODEL_ERROR' } });
    expect(turn.session.messages.edges.map((e) => e.node.content)).toEqual(['hello?']);
    expect(env.fake.chatRequests).toHaveLength(3);
  });

  it('retries a 429 and completes', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ status: 429, error: { message: 'slow down' }, headers: { 'retry-after-ms': '5' } }, { text: 'Here after a retry.' });
    const { events } = await chat(env.server.url, user, { content: 'hi' });
    expect(shape(events)).toEqual(['content*', 'final']);
    expect(contentOf(events)).toBe('Here after a retry.');
    expect(env.fake.chatRequests).toHaveLength(2);
  });

  it('asks for structured output and returns the JSON', async () => {
    const user = newUser(env.server.url);
    await registerAgent(
      user,
      `
name: extractor
description: Extract the person.
structured_output: true
properties:
  name: { type: string, description: Full name }
  age: { type: integer }
required: [name]
`,
    );
    env.fake.enqueue({ json: { name: 'Sarah Chen', age: 41 } });
    const { events, turn } = await chat(env.server.url, user, { content: 'Sarah Chen is 41', agent: 'extractor' });
    expect(shape(events)).toEqual(['content*', 'final']);
    expect(JSON.parse(turn.finalMessage!.content!)).toEqual({ name: 'Sarah Chen', age: 41 });
    const format = env.fake.chatRequests[0]!.body.response_format;
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.schema).toMatchObject({ type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] });
    expect(format.json_schema.schema.description).toBeUndefined();
    expect(env.fake.chatRequests[0]!.body.tools).toBeUndefined();
  });

  it('sends the earlier conversation as history on the next turn (without tool rows)', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'h1', name: 'action', arguments: { type: 'x' } }] }, { text: 'First answer.' });
    const first = await chat(env.server.url, user, { content: 'First question', agent: 'tool-agent' });
    env.fake.enqueue({ text: 'Second answer.' });
    await chat(env.server.url, user, { content: 'Second question', sessionId: first.sent.session.id, agent: 'tool-agent' });
    const messages = env.fake.chatRequests[2]!.body.messages.filter((m: any) => m.role !== 'system');
    expect(messages).toEqual([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'Second question' },
    ]);
  });
});

describe('regenerate', () => {
  it('answers the same user message again: stored once, sent once, without the old answer, and the old answer kept', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'First answer.' }, { text: 'Old answer.' }, { text: 'New answer.' }, { text: 'Newest answer.' });
    const first = await chat(env.server.url, user, { content: 'First question' });
    const second = await chat(env.server.url, user, { content: 'Second question', sessionId: first.sent.session.id });

    const regenerated = (await user.data(RegenerateDocument, { turnId: second.sent.turn.id })).regenerate;
    if (regenerated.__typename !== 'SendMessagePayload') throw new Error(JSON.stringify(regenerated));
    expect(regenerated.session.id).toBe(first.sent.session.id);
    expect(regenerated.userMessage).toEqual(second.sent.userMessage);
    expect(regenerated.turn).toMatchObject({ agent: 'general', model: 'openai:fake-model' });
    expect(regenerated.turn.id).not.toBe(second.sent.turn.id);
    const events = await followTurn(env.server.url, user, regenerated.turn.id);
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'New answer.' });

    const sent = env.fake.chatRequests[2]!.body.messages.filter((m: any) => m.role !== 'system');
    expect(sent).toEqual([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'Second question' },
    ]);
    const turn = (await user.data(TurnDocument, { id: regenerated.turn.id })).turn!;
    expect(turn.finalMessage).toMatchObject({ content: 'New answer.' });
    expect(turn.session.messages.edges.map((e) => [e.node.type, e.node.content])).toEqual([
      ['user', 'First question'],
      ['assistant', 'First answer.'],
      ['user', 'Second question'],
      ['assistant', 'Old answer.'],
      ['assistant', 'New answer.'],
    ]);

    // A regenerated turn answers the same message again in turn.
    const again = (await user.data(RegenerateDocument, { turnId: regenerated.turn.id })).regenerate;
    if (again.__typename !== 'SendMessagePayload') throw new Error(JSON.stringify(again));
    expect(again.userMessage).toEqual(second.sent.userMessage);
    await followTurn(env.server.url, user, again.turn.id);
    expect(env.fake.chatRequests[3]!.body.messages.filter((m: any) => m.role !== 'system')).toEqual(sent);
  });

  it('refuses a running turn (SESSION_BUSY), an unknown one and another user’s (NOT_FOUND)', async () => {
    const alice = newUser(env.server.url);
    const mallory = newUser(env.server.url);
    env.fake.enqueue({ text: ['Working'], hang: true });
    const running = await send(alice, { content: 'one' });
    expect((await alice.data(RegenerateDocument, { turnId: running.turn.id })).regenerate).toMatchObject({
      __typename: 'SessionBusyError',
      code: 'SESSION_BUSY',
      sessionId: running.session.id,
    });
    expect((await mallory.data(RegenerateDocument, { turnId: running.turn.id })).regenerate).toMatchObject({ code: 'NOT_FOUND' });
    await alice.data(CancelTurnDocument, { id: running.turn.id });
    expect((await mallory.data(RegenerateDocument, { turnId: running.turn.id })).regenerate).toMatchObject({ code: 'NOT_FOUND' });
    expect((await alice.data(RegenerateDocument, { turnId: encodeGlobalID('Turn', '00000000-0000-4000-8000-000000000000') })).regenerate).toMatchObject({
      code: 'NOT_FOUND',
    });
    const turn = (await alice.data(TurnDocument, { id: running.turn.id })).turn!;
    expect(turn.session.messages.edges.map((e) => e.node.content)).toEqual(['one']);
  });
});

describe('cancellation and concurrency', () => {
  it('cancels a turn mid-stream', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: ['Partial ', 'answer ', 'that ', 'never ', 'ends'], stallAfterChunks: 3 });
    const sent = await send(user, { content: 'long one' });
    const client = wsClient(env.server.url, user.headers);
    const sub = collect(client, TurnEventsDocument, { turnId: sent.turn.id });
    await until(() => sub.items.length >= 2);
    const cancelled = await user.data(CancelTurnDocument, { id: sent.turn.id });
    expect(cancelled.cancelTurn).toMatchObject({ __typename: 'CancelTurnSuccess', turn: { status: 'CANCELLED' } });
    const events = (await sub.done).map((i) => i.data!.turnEvents);
    await client.dispose();
    expect(shape(events)).toEqual(['content*', 'final']);
    expect(events.at(-1)).toMatchObject({ status: 'CANCELLED', content: 'Partial answer ' });
    const turn = (await user.data(TurnDocument, { id: sent.turn.id })).turn!;
    expect(turn.status).toBe('CANCELLED');
    expect(turn.session.messages.edges.map((e) => e.node.type)).toEqual(['user', 'assistant']);
  });

  it('estimates the tokens of a model call cut short by a cancel, from the request and the text streamed so far', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen', delayMs: 100 });
    const sent = await send(user, { content: 'count slowly' });
    const client = wsClient(env.server.url, user.headers);
    const sub = collect(client, TurnEventsDocument, { turnId: sent.turn.id });
    await until(() => sub.items.length >= 3);
    await user.data(CancelTurnDocument, { id: sent.turn.id });
    const events = (await sub.done).map((i) => i.data!.turnEvents);
    await client.dispose();
    const streamed = contentOf(events);
    expect(streamed.length).toBeGreaterThan(0);

    const turn = (await user.data(TurnUsageDocument, { id: sent.turn.id })).turn!;
    expect(turn.status).toBe('CANCELLED');
    expect(turn.usage).toMatchObject({ requests: 1, estimated: true });
    expect(turn.usage.inputTokens).toBeGreaterThan(0);
    expect(turn.usage.outputTokens).toBeGreaterThan(0);
    // No more output tokens than words streamed (each is one token here, with its space).
    expect(turn.usage.outputTokens).toBeLessThanOrEqual(streamed.split(' ').length);
    expect(turn.llmCalls).toEqual([
      { finishReason: null, usage: { inputTokens: turn.usage.inputTokens, outputTokens: turn.usage.outputTokens, estimated: true } },
    ]);
  });

  it('estimates the tokens of a stream that reports no usage, and keeps reported ones as they are', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue(
      { text: 'An answer without a usage chunk.', withoutUsage: true },
      { text: 'Reported.', usage: { prompt_tokens: 40, completion_tokens: 2 } },
    );
    const first = await chat(env.server.url, user, { content: 'first' });
    const unreported = (await user.data(TurnUsageDocument, { id: first.sent.turn.id })).turn!;
    expect(unreported.usage).toMatchObject({ requests: 1, estimated: true });
    expect(unreported.usage.inputTokens).toBeGreaterThan(0);
    expect(unreported.usage.outputTokens).toBeGreaterThan(0);
    expect(unreported.llmCalls).toMatchObject([{ finishReason: 'stop', usage: { estimated: true } }]);

    const second = await chat(env.server.url, user, { content: 'second', sessionId: first.sent.session.id });
    const reported = (await user.data(TurnUsageDocument, { id: second.sent.turn.id })).turn!;
    expect(reported.usage).toEqual({ inputTokens: 40, outputTokens: 2, requests: 1, estimated: false });
    expect(reported.llmCalls).toEqual([{ finishReason: 'stop', usage: { inputTokens: 40, outputTokens: 2, estimated: false } }]);
  });

  it('refuses a second message while a turn runs (SESSION_BUSY)', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: ['Working'], hang: true });
    const first = await send(user, { content: 'one' });
    const second = await user.data(SendMessageDocument, { input: { content: 'two', sessionId: first.session.id } });
    expect(second.sendMessage).toMatchObject({ __typename: 'SessionBusyError', code: 'SESSION_BUSY', sessionId: first.session.id });
    await user.data(CancelTurnDocument, { id: first.turn.id });
    const turn = (await user.data(TurnDocument, { id: first.turn.id })).turn!;
    expect(turn.status).toBe('CANCELLED');
    expect(turn.session.messages.edges.map((e) => e.node.content)).toEqual(['one']);
  });
});

describe('resumable streams', () => {
  it('resumes after a dropped websocket with the last seq seen, losing and repeating nothing', async () => {
    const user = newUser(env.server.url);
    const words = Array.from({ length: 60 }, (_, i) => `w${i} `);
    env.fake.enqueue({ text: words, delayMs: 5 });
    const sent = await send(user, { content: 'stream a lot' });

    const firstClient = wsClient(env.server.url, user.headers);
    const first = collect(firstClient, TurnEventsDocument, { turnId: sent.turn.id }, (items) => items.length >= 10);
    const before = (await first.done).map((i) => i.data!.turnEvents);
    firstClient.terminate();
    const lastSeq = (before.at(-1) as any).seq as number;

    const after = await followTurn(env.server.url, user, sent.turn.id, lastSeq);
    const all: Event[] = [...before, ...after];
    expectGapFreeSeqs(all);
    expect(contentOf(all)).toBe(words.join(''));
    expect(all.at(-1)).toMatchObject({ status: 'COMPLETED', content: words.join('') });
  });

  it('replays a finished turn in full, and nothing after its last seq', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Finished long ago.' });
    const { sent, events } = await chat(env.server.url, user, { content: 'x' });
    const replay = await followTurn(env.server.url, user, sent.turn.id);
    expect(replay).toEqual(events);
    const tail = await followTurn(env.server.url, user, sent.turn.id, events.length - 2);
    expect(tail).toEqual(events.slice(-2));
    expect(await followTurn(env.server.url, user, sent.turn.id, events.length)).toEqual([]);
  });

  it('replays no turn of a deleted session, however lately it ended', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Soon gone.' });
    const { sent } = await chat(env.server.url, user, { content: 'x' });
    expect((await user.data(DeleteSessionDocument, { id: sent.session.id })).deleteSession.__typename).toBe('DeleteSessionSuccess');
    expect(String(await followUntilRefused(env.server.url, user, sent.turn.id))).toMatch(/NOT_FOUND/);
  });

  it('keeps an ended ephemeral turn for its retention, replaying it in full to a late subscriber, until the sweep drops it', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: ['Off ', 'the ', 'record.'] });
    const sent = await send(user, { content: 'between us', ephemeral: true });
    const prisma = env.server.db.prisma;
    const turnId = decodeGlobalID(sent.turn.id).id;
    const sessionId = decodeGlobalID(sent.session.id).id;
    // Ended before anyone subscribed (the row gone counts as ended too, so a turn dropped early fails below).
    await until(async () => (await prisma.turn.findUnique({ where: { id: turnId } }))?.status !== 'RUNNING');

    const events = await followTurn(env.server.url, user, sent.turn.id, 0);
    expect(shape(events)).toEqual(['content*', 'final']);
    expectGapFreeSeqs(events);
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'Off the record.' });
    expect(await followTurn(env.server.url, user, sent.turn.id, 0)).toEqual(events);
    expect(await prisma.message.count({ where: { sessionId } })).toBe(0);

    // Once its retention (EPHEMERAL_TURN_RETENTION_MS, a minute by default) has passed, the sweep drops it with its log and session.
    await prisma.turn.update({ where: { id: turnId }, data: { finishedAt: new Date(Date.now() - 120_000) } });
    await until(async () => (await prisma.turn.count({ where: { id: turnId } })) === 0, 30_000);
    expect(await prisma.turnEventChunk.count({ where: { turnId } })).toBe(0);
    expect(await prisma.session.count({ where: { id: sessionId } })).toBe(0);
  });

  it('streams a turn over server-sent events too', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Over SSE.' });
    const sent = await send(user, { content: 'sse' });
    const res = await fetch(env.server.url, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        query: 'subscription($id: ID!) { turnEvents(turnId: $id) { __typename ... on ContentEvent { delta } } }',
        variables: { id: sent.turn.id },
      }),
    });
    const text = await res.text();
    const deltas = [...text.matchAll(/"delta":"([^"]*)"/g)].map((m) => m[1]).join('');
    expect(deltas).toBe('Over SSE.');
    expect(text).toContain('"__typename":"FinalEvent"');
  });

  it('streams every turn of a session on sessionEvents', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'one' });
    const { sent } = await chat(env.server.url, user, { content: 'first' });
    const client = wsClient(env.server.url, user.headers);
    const sub = collect(client, SessionEventsDocument, { sessionId: sent.session.id }, (items) =>
      items.some((i) => i.data?.sessionEvents.__typename === 'FinalEvent'),
    );
    await new Promise((r) => setTimeout(r, 100));
    env.fake.enqueue({ text: 'second answer' });
    const second = await send(user, { content: 'second', sessionId: sent.session.id });
    const events = (await sub.done).map((i) => i.data!.sessionEvents);
    await client.dispose();
    expect(contentOf(events)).toBe('second answer');
    expect(new Set(events.map((e) => (e as any).turnId))).toEqual(new Set([second.turn.id]));
  });
});

describe('scoping', () => {
  it('answers NOT_FOUND for another user’s turn everywhere', async () => {
    const alice = newUser(env.server.url);
    const mallory = newUser(env.server.url);
    env.fake.enqueue({ text: 'private' });
    const { sent } = await chat(env.server.url, alice, { content: 'secret' });
    expect(errorCode(await mallory.request(TurnDocument, { id: sent.turn.id }))).toBe('NOT_FOUND');
    expect((await mallory.data(CancelTurnDocument, { id: sent.turn.id })).cancelTurn).toMatchObject({ code: 'NOT_FOUND' });
    await expect(followTurn(env.server.url, mallory, sent.turn.id)).rejects.toThrow(/NOT_FOUND/);
    expect((await mallory.data(SendMessageDocument, { input: { content: 'hi', sessionId: sent.session.id } })).sendMessage).toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('rejects bad input without starting anything', async () => {
    const user = newUser(env.server.url);
    // Counted for this user only: other suites may start turns in the same database meanwhile.
    const turnsOfUser = () => env.server.db.prisma.turn.count({ where: { userId: user.headers['x-user-id'] } });
    const empty = await user.data(SendMessageDocument, { input: { content: '   ' } });
    expect(empty.sendMessage).toMatchObject({ __typename: 'ValidationError', issues: [{ path: ['input', 'content'] }] });
    const noAgent = await user.data(SendMessageDocument, { input: { content: 'hi', agent: 'no-such-agent' } });
    expect(noAgent.sendMessage).toMatchObject({ __typename: 'NotFoundError' });
    const badModel = await user.data(SendMessageDocument, { input: { content: 'hi', model: 'nowhere:gpt' } });
    expect(badModel.sendMessage).toMatchObject({ __typename: 'ValidationError' });
    expect((badModel.sendMessage as any).message).toMatch(/nowhere/);
    expect(await turnsOfUser()).toBe(0);
  });
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('memory search tool', () => {
  it('lets an agent query REM and streams the hits as sources', async () => {
    const user = newUser(env.server.url);
    const { UpsertEntityDocument } = await import('../generated/graphql.js');
    await user.data(UpsertEntityDocument, { input: { key: 'Sarah Chen', content: 'Sarah Chen leads the platform team.', tags: ['people'] } });
    await registerAgent(user, 'name: rememberer\ndescription: You look things up.\ntools:\n  - name: search\n');
    env.fake.enqueue({ toolCalls: [{ id: 's1', name: 'search', arguments: { query: 'LOOKUP "sarah-chen"' } }] }, { text: 'Sarah leads the platform team.' });
    const { events, turn } = await chat(env.server.url, user, { content: 'Who is Sarah?', agent: 'rememberer' });
    expect(shape(events)).toEqual(['tool_call', 'sources', 'tool_result', 'content*', 'final']);
    expect(events[1]).toMatchObject({ sources: [{ key: 'sarah-chen', entityType: 'entities' }] });
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED' });
    expect(turn.toolCallsLog).toMatchObject([{ tool: 'search', isError: false, result: { mode: 'LOOKUP', hits: [{ key: 'sarah-chen' }] } }]);
  });
});

describe('history compression', () => {
  it('cuts long earlier answers for agents that can search, and the hint leads back to the full text', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: rememberer\ndescription: You look things up.\ntools:\n  - name: search\n');
    const long = `The plan: ${'step by step, carefully, '.repeat(40)}done.`;
    env.fake.enqueue({ text: long });
    const first = await chat(env.server.url, user, { content: 'Write the plan', agent: 'rememberer' });

    const hint = /\n\n\.\.\. \[Message truncated - REM LOOKUP (session-[0-9a-f-]+-msg-2) to recover full content\] \.\.\.\n\n/;
    env.fake.enqueue(
      (request) => {
        const earlier = request.body.messages.find((m: { role: string; content: string }) => m.role === 'assistant');
        const key = hint.exec(earlier.content)![1]!;
        return { toolCalls: [{ id: 'l1', name: 'search', arguments: { query: `LOOKUP "${key}"` } }] };
      },
      { text: 'Here is the full plan again.' },
    );
    const second = await chat(env.server.url, user, { content: 'Repeat the plan exactly', sessionId: first.sent.session.id, agent: 'rememberer' });

    const earlier = env.fake.chatRequests[1]!.body.messages.find((m: { role: string }) => m.role === 'assistant');
    expect(earlier.content).toMatch(hint);
    // Head and tail, per REMLight.
    expect(earlier.content.startsWith('The plan: step by step')).toBe(true);
    expect(earlier.content.endsWith('carefully, done.')).toBe(true);
    expect(earlier.content.length).toBeLessThan(long.length);
    expect(second.turn.toolCallsLog).toMatchObject([{ tool: 'search', result: { mode: 'LOOKUP', hits: [{ entityType: 'messages', content: long }] } }]);
  });

  it('sends the full history to agents that cannot search', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    const long = `Long answer ${'x'.repeat(1000)}`;
    env.fake.enqueue({ text: long }, { text: 'ok' });
    const first = await chat(env.server.url, user, { content: 'one', agent: 'tool-agent' });
    await chat(env.server.url, user, { content: 'two', sessionId: first.sent.session.id, agent: 'tool-agent' });
    const earlier = env.fake.chatRequests[1]!.body.messages.find((m: { role: string }) => m.role === 'assistant');
    expect(earlier.content).toBe(long);
  });
});
