import { randomUUID } from 'node:crypto';
import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { caller, collect, newUser, wsClient, type Caller } from '../support/client.js';
import { chat, contentOf, GATED_AGENT, registerAgent, send, shape, useAgentServer, type Event } from '../support/agents.js';
import type { RecordedRequest } from '../support/fake-openai.js';
import { storedEvents } from '../support/stored-events.js';
import {
  AppendMessagesDocument,
  CancelTurnDocument,
  CreateSessionDocument,
  ExtractDocument,
  RegisterAgentDocument,
  RenameSessionDocument,
  SendMessageDocument,
  SessionListDocument,
  TurnEventsDocument,
  TurnRecordDocument,
  ViewerDocument,
} from '../generated/graphql.js';

// Ephemeral turns are dropped as soon as their stream ends (no retention).
const env = useAgentServer({ SWEEP_INTERVAL_MS: '200', EPHEMERAL_TURN_RETENTION_MS: '0' });

const TOOL_AGENT = `
name: noter
description: You take notes.
max_iterations: 4
tools:
  - name: action
  - name: search
    description: Look invoices up by their number.
`;

const STRUCTURED_AGENT = `
name: extractor
description: Extract the person.
structured_output: true
properties:
  name: { type: string }
  age: { type: integer, minimum: 0 }
required: [name, age]
`;

const rowId = (globalId: string) => decodeGlobalID(globalId).id;
const record = async (user: Caller, turnId: string) => (await user.data(TurnRecordDocument, { id: turnId })).turn!;
const messagesOf = (turn: Awaited<ReturnType<typeof record>>) => turn.session.messages.edges.map((e) => e.node);
const conversation = (request: RecordedRequest) => request.body.messages.filter((m: any) => m.role !== 'system');
const systemOf = (request: RecordedRequest) => request.body.messages.filter((m: any) => m.role === 'system').map((m: any) => m.content as string);

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('what the model is sent', () => {
  it('sends X-Added-Instruction with the request context and stores it nowhere in the session', async () => {
    const instruction = 'Answer in French, always (test-marker-41).';
    const user = newUser(env.server.url, undefined, { 'x-added-instruction': instruction });
    env.fake.enqueue({ text: 'Bonjour.' });
    const { turn } = await chat(env.server.url, user, { content: 'Hello' });

    const [prompt, context] = systemOf(env.fake.chatRequests[0]!);
    expect(prompt).not.toContain(instruction);
    expect(context).toMatch(/^\[Context\]\n/);
    expect(context!.endsWith(`\n\n${instruction}`)).toBe(true);
    const stored = await env.server.db.prisma.message.findMany({ where: { sessionId: rowId(turn.session.id) } });
    expect(stored.map((m) => m.type)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(stored)).not.toContain('test-marker-41');
    const events = await storedEvents(env.server.db.sql, rowId(turn.id));
    expect(JSON.stringify(events)).not.toContain('test-marker-41');
  });

  it('appends an agent’s tool note to the tool’s own description', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    env.fake.enqueue({ text: 'Nothing to look up.' });
    await chat(env.server.url, user, { content: 'hi', agent: 'noter' });

    const tools = env.fake.chatRequests[0]!.body.tools.map((t: any) => t.function);
    const search = tools.find((t: any) => t.name === 'search');
    // The REM dialect documentation stays; the agent's note follows it.
    expect(search.description).toMatch(/^Query memory with the REM dialect\. LOOKUP "key"/);
    expect(search.description).toMatch(/TRAVERSE FROM "key"/);
    expect(search.description.endsWith('\n\nTool Notes: Look invoices up by their number.')).toBe(true);
    expect(tools.find((t: any) => t.name === 'action').description).not.toContain('Tool Notes');
    expect(systemOf(env.fake.chatRequests[0]!)[0]).toContain('## Tool Notes\n- **search**: Look invoices up by their number.');
  });

  it('continues the session named by X-Session-Id (global or bare id) when the input names none', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'First answer.' }, { text: 'Second answer.' }, { text: 'Third answer.' });
    const first = await chat(env.server.url, user, { content: 'First question' });
    const sessionId = first.sent.session.id;

    const byGlobal = newUser(env.server.url, user.headers['x-tenant-id'], { 'x-user-id': user.headers['x-user-id']!, 'x-session-id': sessionId });
    const second = await chat(env.server.url, byGlobal, { content: 'Second question' });
    const byUuid = newUser(env.server.url, user.headers['x-tenant-id'], { 'x-user-id': user.headers['x-user-id']!, 'x-session-id': rowId(sessionId) });
    const third = await chat(env.server.url, byUuid, { content: 'Third question' });

    expect(second.sent.session.id).toBe(sessionId);
    expect(third.sent.session.id).toBe(sessionId);
    expect(env.fake.chatRequests[2]!.body.messages.filter((m: any) => m.role !== 'system')).toEqual([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'Second question' },
      { role: 'assistant', content: 'Second answer.' },
      { role: 'user', content: 'Third question' },
    ]);
  });

  it('refuses an X-Session-Id that is not an id, and one naming another user’s session', async () => {
    const owner = newUser(env.server.url);
    env.fake.enqueue({ text: 'Mine.' });
    const { sent } = await chat(env.server.url, owner, { content: 'private' });
    const bad = await send(newUser(env.server.url, undefined, { 'x-session-id': 'not an id' }), { content: 'x' }).catch((e: Error) => e.message);
    expect(bad).toMatch(/VALIDATION_FAILED.*X-Session-Id/);
    const other = await send(newUser(env.server.url, owner.headers['x-tenant-id'], { 'x-session-id': sent.session.id }), { content: 'x' }).catch(
      (e: Error) => e.message,
    );
    expect(other).toMatch(/NOT_FOUND/);
  });
});

describe('what a turn keeps', () => {
  it('streams reasoning deltas as thought events and stores them as a think message', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ reasoning: 'The user greets me. I greet back.', reasoningField: 'reasoning', text: 'Hello to you.' });
    const { events, turn } = await chat(env.server.url, user, { content: 'Hello' });

    expect(shape(events)).toEqual(['thought', 'thought', 'thought', 'thought', 'thought', 'thought', 'thought', 'content*', 'final']);
    expect(events.flatMap((e) => (e.__typename === 'ThoughtEvent' ? [e.text] : [])).join('')).toBe('The user greets me. I greet back.');
    expect(contentOf(events)).toBe('Hello to you.');
    expect(messagesOf(await record(user, turn.id)).map((m) => [m.type, m.content])).toEqual([
      ['user', 'Hello'],
      ['think', 'The user greets me. I greet back.'],
      ['assistant', 'Hello to you.'],
    ]);
  });

  it('keeps an observation with the seeds’ fields (risk_level moderate) as an observation message', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    const payload = {
      confidence: 0.7,
      session_name: 'Invoice check',
      references: ['https://example.com/inv'],
      risk_level: 'moderate',
      risk_score: 40,
      extra: { team: 'finance' },
    };
    env.fake.enqueue({ toolCalls: [{ id: 'o1', name: 'action', arguments: { type: 'observation', payload } }] }, { text: 'Checked.' });
    const { events, turn } = await chat(env.server.url, user, { content: 'check', agent: 'noter' });

    expect(shape(events)).toEqual(['tool_call', 'action', 'tool_result', 'content*', 'final']);
    expect(events[1]).toMatchObject({ actionType: 'observation', payload });
    expect(events[2]).toMatchObject({ isError: false });
    const rows = messagesOf(await record(user, turn.id));
    expect(rows.map((m) => m.type)).toEqual(['user', 'tool_call', 'observation', 'tool_response', 'assistant']);
    expect(JSON.parse(rows[2]!.content!)).toEqual(payload);
  });

  it('ends at max_iterations with the last text the model said', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT.replace('max_iterations: 4', 'max_iterations: 1'));
    env.fake.enqueue({ text: 'Let me note that first.', toolCalls: [{ id: 'm1', name: 'action', arguments: { type: 'note' } }] });
    const { events, turn } = await chat(env.server.url, user, { content: 'note it', agent: 'noter' });

    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'MAX_ITERATIONS', content: 'Let me note that first.' });
    const stored = await record(user, turn.id);
    expect(stored).toMatchObject({ status: 'MAX_ITERATIONS', finalMessage: { content: 'Let me note that first.' } });
  });

  it('marks an eval turn, its messages and session (left out of default session lists) and keeps the client id', async () => {
    const user = newUser(env.server.url);
    const evalCaller = newUser(env.server.url, user.headers['x-tenant-id'], {
      'x-user-id': user.headers['x-user-id']!,
      'x-is-eval': 'true',
      'x-client-id': 'eval-runner',
    });
    env.fake.enqueue({ text: 'Scored.' }, { text: 'Normal.' });
    const evalTurn = await chat(env.server.url, evalCaller, { content: 'grade me' });
    const normal = await chat(env.server.url, user, { content: 'talk to me' });

    const stored = await record(user, evalTurn.sent.turn.id);
    expect(stored).toMatchObject({ isEval: true, clientId: 'eval-runner', session: { isEval: true } });
    expect(messagesOf(stored).map((m) => m.isEval)).toEqual([true, true]);
    expect(await record(user, normal.sent.turn.id)).toMatchObject({ isEval: false, clientId: null, session: { isEval: false } });

    const list = async (filter?: { includeEval: boolean }) => (await user.data(SessionListDocument, { filter })).sessions.edges.map((e) => e.node.id);
    expect(await list()).toEqual([normal.sent.session.id]);
    expect(new Set(await list({ includeEval: true }))).toEqual(new Set([normal.sent.session.id, evalTurn.sent.session.id]));
  });
});

describe('ephemeral turns', () => {
  /** A tool call first, so the test can be subscribed before the answer (which ends and drops the turn). */
  function scriptGatedAnswer(answer: string) {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    env.fake.enqueue({ toolCalls: [{ id: 'e1', name: 'action', arguments: { type: 'progress' } }] }, async () => {
      await gate;
      return { text: answer };
    });
    return open;
  }

  async function followGated(user: Caller, turnId: string, open: () => void): Promise<Event[]> {
    const client = wsClient(env.server.url, user.headers);
    const sub = collect(client, TurnEventsDocument, { turnId });
    await until(() => sub.items.some((i) => i.data?.turnEvents.__typename === 'ToolResultEvent'));
    open();
    const items = await sub.done;
    await client.dispose();
    return items.map((i) => i.data!.turnEvents);
  }

  it('streams a turn in a new session and leaves no message rows, then drops the turn and the session', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    const open = scriptGatedAnswer('Off the record.');
    const sent = await send(user, { content: 'secret', agent: 'noter', ephemeral: true });
    expect(sent.userMessage).toBeNull();
    const events = await followGated(user, sent.turn.id, open);

    expect(shape(events)).toEqual(['tool_call', 'action', 'tool_result', 'content*', 'final']);
    expect(contentOf(events)).toBe('Off the record.');
    const prisma = env.server.db.prisma;
    await until(async () => (await prisma.turn.count({ where: { id: rowId(sent.turn.id) } })) === 0);
    expect(await prisma.message.count({ where: { sessionId: rowId(sent.session.id) } })).toBe(0);
    expect(await prisma.turnEventChunk.count({ where: { turnId: rowId(sent.turn.id) } })).toBe(0);
    expect(await prisma.session.count({ where: { id: rowId(sent.session.id) } })).toBe(0);
  });

  it('answers from an existing session’s history without adding to it', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    env.fake.enqueue({ text: 'Noted: blue.' });
    const first = await chat(env.server.url, user, { content: 'My colour is blue', agent: 'noter' });
    const open = scriptGatedAnswer('Blue.');
    const sent = await send(user, { content: 'What is my colour?', agent: 'noter', sessionId: first.sent.session.id, ephemeral: true });
    await followGated(user, sent.turn.id, open);

    expect(env.fake.chatRequests[2]!.body.messages.filter((m: any) => m.role === 'user' || (m.role === 'assistant' && !m.tool_calls))).toEqual([
      { role: 'user', content: 'My colour is blue' },
      { role: 'assistant', content: 'Noted: blue.' },
      { role: 'user', content: 'What is my colour?' },
    ]);
    const prisma = env.server.db.prisma;
    await until(async () => (await prisma.turn.count({ where: { id: rowId(sent.turn.id) } })) === 0);
    const rows = await prisma.message.findMany({ where: { sessionId: rowId(first.sent.session.id) }, orderBy: { seq: 'asc' } });
    expect(rows.map((m) => m.content)).toEqual(['My colour is blue', 'Noted: blue.']);
    expect(await prisma.session.count({ where: { id: rowId(first.sent.session.id) } })).toBe(1);
  });
});

describe('a paused ephemeral turn, without retention', () => {
  // No sweep after start-up: only the cancel itself can drop the turn.
  const quiet = useAgentServer({ SWEEP_INTERVAL_MS: '600000', EPHEMERAL_TURN_RETENTION_MS: '0' });

  it('is dropped as soon as it is cancelled, after its subscriber saw the end', async () => {
    const user = newUser(quiet.server.url);
    await registerAgent(user, GATED_AGENT);
    quiet.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'action', arguments: { type: 'deploy' } }] });
    const sent = await send(user, { content: 'deploy quietly', agent: 'careful', ephemeral: true });
    const client = wsClient(quiet.server.url, user.headers);
    const sub = collect(client, TurnEventsDocument, { turnId: sent.turn.id });
    await until(() => sub.items.some((i) => i.data?.turnEvents.__typename === 'ApprovalNeededEvent'));
    const { cancelTurn } = await user.data(CancelTurnDocument, { id: sent.turn.id });
    expect(cancelTurn).toMatchObject({ __typename: 'CancelTurnSuccess', turn: { status: 'CANCELLED' } });
    const prisma = quiet.server.db.prisma;
    expect(await prisma.turn.count({ where: { id: rowId(sent.turn.id) } })).toBe(0);
    expect(await prisma.session.count({ where: { id: rowId(sent.session.id) } })).toBe(0);
    const events = (await sub.done).map((i) => i.data!.turnEvents);
    await client.dispose();
    expect(shape(events)).toEqual(['tool_call', 'approval_needed', 'final']);
    expect(events.at(-1)).toMatchObject({ status: 'CANCELLED' });
  });
});

describe('turn.llmCalls', () => {
  it('records every model call with the exact request body, model, latency, usage and finish reason, for the owner only', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, TOOL_AGENT);
    env.fake.enqueue(
      { toolCalls: [{ id: 'l1', name: 'action', arguments: { type: 'progress' } }], usage: { prompt_tokens: 120, completion_tokens: 9 } },
      { text: 'Done.', usage: { prompt_tokens: 150, completion_tokens: 2 } },
    );
    const { turn } = await chat(env.server.url, user, { content: 'log it', agent: 'noter' });
    const stored = await record(user, turn.id);

    expect(stored.llmCalls).toHaveLength(2);
    stored.llmCalls!.forEach((call, i) => {
      expect(call.requestText).toBe(env.fake.chatRequests[i]!.raw);
      expect(call.request).toEqual(env.fake.chatRequests[i]!.body);
      expect(JSON.stringify((call.request as any).messages)).toBe(JSON.stringify(env.fake.chatRequests[i]!.body.messages));
      expect(call).toMatchObject({ provider: 'openai', model: 'fake-model', iteration: i + 1, error: null });
      expect(call.latencyMs).toBeGreaterThanOrEqual(0);
    });
    expect(stored.llmCalls!.map((c) => [c.finishReason, c.usage.inputTokens, c.usage.outputTokens])).toEqual([
      ['tool_calls', 120, 9],
      ['stop', 150, 2],
    ]);
    // The second request carries the tool call and its result: the whole conversation as sent.
    expect((stored.llmCalls![1]!.request as any).messages.map((m: any) => m.role)).toEqual(['system', 'system', 'user', 'assistant', 'tool']);

    const stranger = newUser(env.server.url, user.headers['x-tenant-id']);
    const seen = await stranger.request(TurnRecordDocument, { id: turn.id });
    expect(seen.body.data?.turn ?? null).toBeNull();
  });

  it('keeps the calls of a turn paused for approval', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'g1', name: 'action', arguments: { type: 'publish' } }] });
    const sent = await send(user, { content: 'publish it', agent: 'careful' });
    await until(async () => (await record(user, sent.turn.id)).status === 'AWAITING_APPROVAL');
    const calls = (await record(user, sent.turn.id)).llmCalls!;
    expect(calls.map((c) => [c.iteration, c.finishReason, c.requestText])).toEqual([[1, 'tool_calls', env.fake.chatRequests[0]!.raw]]);
  });
});

describe('structured output', () => {
  it('asks once for a repair with the validation errors, then ends VALIDATION_FAILED with them', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, STRUCTURED_AGENT);
    env.fake.enqueue({ json: { name: 'Sarah Chen', age: 'forty' } }, { json: { name: 'Sarah Chen' } });
    const { events, turn } = await chat(env.server.url, user, { content: 'Sarah Chen is forty', agent: 'extractor' });

    const repair = env.fake.chatRequests[1]!.body.messages.slice(-2);
    expect(repair[0]).toEqual({ role: 'assistant', content: '{"name":"Sarah Chen","age":"forty"}' });
    expect(repair[1].role).toBe('user');
    expect(repair[1].content).toContain('- /age must be integer');
    expect(shape(events)).toEqual(['content*', 'error', 'final']);
    const error = events.find((e) => e.__typename === 'ErrorEvent')!;
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED' });
    const stored = await record(user, turn.id);
    expect(stored.events.find((e) => e.__typename === 'ErrorEvent')).toMatchObject({ details: { errors: ["/ must have required property 'age'"] } });
    expect(stored).toMatchObject({
      status: 'ERROR',
      error: { code: 'VALIDATION_FAILED', details: { errors: ["/ must have required property 'age'"] } },
      finalMessage: null,
    });
    expect(events.at(-1)).toMatchObject({ status: 'ERROR', content: null });
  });

  it('completes with the repaired JSON when the repair matches', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, STRUCTURED_AGENT);
    env.fake.enqueue({ json: { name: 'Sarah Chen' } }, { json: { name: 'Sarah Chen', age: 41 } });
    const { turn } = await chat(env.server.url, user, { content: 'Sarah Chen is 41', agent: 'extractor' });
    const stored = await record(user, turn.id);
    expect(stored).toMatchObject({ status: 'COMPLETED', finalMessage: { content: '{"name":"Sarah Chen","age":41}' } });
    expect(env.fake.chatRequests[1]!.body.messages.at(-1).content).toContain("/ must have required property 'age'");
  });
});

describe('extract', () => {
  const rowCounts = async () => {
    const p = env.server.db.prisma;
    return Promise.all([p.session.count(), p.turn.count(), p.message.count(), p.turnEventChunk.count()]);
  };
  /** Each model call an extraction made: a row of llm_calls of call type `extract`, on no turn. */
  const extractCalls = (user: { headers: Record<string, string> }) =>
    env.server.db.prisma.llmCall.findMany({ where: { userId: user.headers['x-user-id'] }, orderBy: { createdAt: 'asc' } });

  it('returns JSON valid against the agent’s schema and stores nothing but its model call', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, STRUCTURED_AGENT);
    const before = await rowCounts();
    env.fake.enqueue({ json: { name: 'Sarah Chen', age: 41 }, usage: { prompt_tokens: 30, completion_tokens: 8 } });
    const { extract } = await user.data(ExtractDocument, { input: { agent: 'extractor', content: 'Sarah Chen, 41, runs finance.' } });

    expect(extract).toEqual({
      __typename: 'ExtractPayload',
      data: { name: 'Sarah Chen', age: 41 },
      model: 'openai:fake-model',
      usage: { inputTokens: 30, outputTokens: 8, requests: 1 },
    });
    const body = env.fake.chatRequests[0]!.body;
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'extractor', schema: { required: ['name', 'age'] } } });
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: 'Sarah Chen, 41, runs finance.' });
    expect(await rowCounts()).toEqual(before);
    const [call, ...more] = await extractCalls(user);
    expect(more).toEqual([]);
    expect(call).toMatchObject({
      callType: 'extract',
      turnId: null,
      sessionId: null,
      model: 'fake-model',
      inputTokens: 30,
      outputTokens: 8,
      finishReason: 'stop',
    });
    expect(JSON.parse(call!.request!)).toEqual(body);
  });

  it('uses a caller’s schema, repairs once, then fails with the validation errors (storing only its two model calls)', async () => {
    const user = newUser(env.server.url);
    const before = await rowCounts();
    const schema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'], additionalProperties: false };
    env.fake.enqueue({ json: { sum: 12 } }, { json: { total: 'twelve' } });
    const { extract } = await user.data(ExtractDocument, { input: { agent: 'general', content: 'Invoice total: 12', schema } });

    expect(env.fake.chatRequests[0]!.body.response_format.json_schema.schema).toEqual(schema);
    expect(env.fake.chatRequests[1]!.body.messages.at(-1).content).toContain("- / must have required property 'total'");
    expect(extract).toMatchObject({ __typename: 'ValidationError', code: 'VALIDATION_FAILED', issues: [{ path: ['data'], message: '/total must be number' }] });
    expect(await rowCounts()).toEqual(before);
    expect((await extractCalls(user)).map((c) => [c.callType, c.iteration])).toEqual([
      ['extract', 0],
      ['extract', 1],
    ]);
  });

  it('refuses an agent without an output schema when none is given, a broken schema and an unknown agent', async () => {
    const user = newUser(env.server.url);
    const noSchema = await user.data(ExtractDocument, { input: { agent: 'general', content: 'x' } });
    expect(noSchema.extract).toMatchObject({ __typename: 'ValidationError', issues: [{ path: ['input', 'schema'] }] });
    const broken = await user.data(ExtractDocument, { input: { agent: 'general', content: 'x', schema: { type: 'no-such-type' } } });
    expect(broken.extract).toMatchObject({ __typename: 'ValidationError', issues: [{ path: ['input', 'schema'] }] });
    const unknown = await user.data(ExtractDocument, { input: { agent: 'nobody', content: 'x', schema: { type: 'object' } } });
    expect(unknown.extract).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    expect(env.fake.chatRequests).toHaveLength(0);
    expect(await extractCalls(user)).toEqual([]);
  });
});

describe('appendMessages', () => {
  it('adds messages to a session without a run; the next turn sees them as history', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Hi.' });
    const first = await chat(env.server.url, user, { content: 'Hello' });
    const sessionId = first.sent.session.id;
    const { appendMessages } = await user.data(AppendMessagesDocument, {
      sessionId,
      messages: [
        { type: 'user', content: 'Imported question' },
        { type: 'assistant', content: 'Imported answer', agentName: 'elsewhere' },
      ],
    });
    expect(appendMessages).toEqual({
      __typename: 'AppendMessagesPayload',
      messages: [
        { seq: 3, type: 'user', content: 'Imported question', agentName: null },
        { seq: 4, type: 'assistant', content: 'Imported answer', agentName: 'elsewhere' },
      ],
    });
    expect(env.fake.chatRequests).toHaveLength(1);
    env.fake.enqueue({ text: 'Continuing.' });
    await chat(env.server.url, user, { content: 'Go on', sessionId });
    expect(env.fake.chatRequests[1]!.body.messages.filter((m: any) => m.role !== 'system').map((m: any) => m.content)).toEqual([
      'Hello',
      'Hi.',
      'Imported question',
      'Imported answer',
      'Go on',
    ]);
  });

  it('refuses bad messages, another user’s session and a session whose turn waits for approval', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'b1', name: 'action', arguments: { type: 'publish' } }] });
    const sent = await send(user, { content: 'publish', agent: 'careful' });
    await until(async () => (await record(user, sent.turn.id)).status === 'AWAITING_APPROVAL');

    const append = (who: Caller, messages: { type: 'user' | 'assistant' | 'system'; content: string }[]) =>
      who.data(AppendMessagesDocument, { sessionId: sent.session.id, messages });
    expect((await append(user, [{ type: 'user', content: '' }])).appendMessages).toMatchObject({
      __typename: 'ValidationError',
      issues: [{ path: ['messages', '0', 'content'] }],
    });
    expect((await append(user, [])).appendMessages).toMatchObject({ __typename: 'ValidationError', issues: [{ path: ['messages'] }] });
    expect((await append(newUser(env.server.url, user.headers['x-tenant-id']), [{ type: 'user', content: 'x' }])).appendMessages).toMatchObject({
      __typename: 'NotFoundError',
    });
    expect((await append(user, [{ type: 'system', content: 'x' }])).appendMessages).toMatchObject({ __typename: 'SessionBusyError', code: 'SESSION_BUSY' });
    expect(await env.server.db.prisma.message.count({ where: { sessionId: rowId(sent.session.id) } })).toBe(1);
  });
});

describe('per-call overrides', () => {
  const AGENT = `
name: tunable
description: You are tunable.
temperature: 0.7
max_tokens: 500
tools:
  - name: action
  - name: search
`;

  it('applies temperature, max tokens, a system prompt suffix and a tool subset to every model call of the turn', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, AGENT);
    env.fake.enqueue({ text: 'Tuned.' });
    await chat(env.server.url, user, {
      content: 'hi',
      agent: 'tunable',
      overrides: { temperature: 0.1, maxTokens: 200, systemPromptSuffix: 'Answer in one word.', tools: ['search'] },
    });

    const body = env.fake.chatRequests[0]!.body;
    expect(body).toMatchObject({ temperature: 0.1, max_tokens: 200 });
    expect(body.messages[0].content.endsWith('\n\nAnswer in one word.')).toBe(true);
    expect(body.tools.map((t: any) => t.function.name)).toEqual(['search']);
  });

  it('refuses a tool the agent does not declare and more tokens than the agent allows', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, AGENT);
    const tool = await user.data(SendMessageDocument, { input: { content: 'hi', agent: 'tunable', overrides: { tools: ['search', 'ask_agent'] } } });
    expect(tool.sendMessage).toMatchObject({
      __typename: 'ValidationError',
      issues: [{ path: ['input', 'overrides', 'tools', '1'], message: 'agent tunable does not declare tool "ask_agent"' }],
    });
    const tokens = await user.data(SendMessageDocument, { input: { content: 'hi', agent: 'tunable', overrides: { maxTokens: 501 } } });
    expect(tokens.sendMessage).toMatchObject({ __typename: 'ValidationError', issues: [{ path: ['input', 'overrides', 'maxTokens'] }] });
    const temperature = await user.data(SendMessageDocument, { input: { content: 'hi', agent: 'tunable', overrides: { temperature: 3 } } });
    expect(temperature.sendMessage).toMatchObject({ __typename: 'ValidationError', issues: [{ path: ['input', 'overrides', 'temperature'] }] });
    expect(env.fake.chatRequests).toHaveLength(0);
  });
});

describe('anonymous callers (header mode, no X-User-Id, no DEFAULT_USER)', () => {
  it('see only shared rows, write nothing, and may run ephemeral turns (over a shared session too)', async () => {
    const tenant = `t-${randomUUID()}`;
    const admin = newUser(env.server.url, tenant, { 'x-roles': 'admin' });
    const member = newUser(env.server.url, tenant);
    const anonymous = caller(env.server.url, { 'x-tenant-id': tenant });
    expect((await anonymous.data(ViewerDocument)).viewer).toMatchObject({ userId: null, tenantId: tenant });

    const shared = await env.server.db.prisma.session.create({ data: { name: 'Shared notes', tenantId: tenant, userId: null } });
    await env.server.db.prisma.message.createMany({
      data: [
        { sessionId: shared.id, seq: 1, type: 'user', content: 'Team question', tenantId: tenant, userId: null },
        { sessionId: shared.id, seq: 2, type: 'assistant', content: 'Team answer', tenantId: tenant, userId: null },
      ],
    });
    env.fake.enqueue({ text: 'Private.' });
    await chat(env.server.url, member, { content: 'mine' });
    const visible = (await anonymous.data(SessionListDocument, {})).sessions.edges.map((e) => rowId(e.node.id));
    expect(visible).toEqual([shared.id]);

    const refused = async (result: Promise<unknown>) => JSON.stringify(await result);
    expect(await refused(anonymous.data(SendMessageDocument, { input: { content: 'remember me' } }))).toMatch(
      /"ForbiddenError".*Anonymous callers cannot store messages/,
    );
    expect(await refused(anonymous.data(CreateSessionDocument, { input: { name: 'x' } }))).toMatch(/"ForbiddenError"/);
    expect(await refused(anonymous.data(RegisterAgentDocument, { yaml: 'name: anon\ndescription: x\n' }))).toMatch(/"ForbiddenError"/);
    expect(await refused(anonymous.data(RenameSessionDocument, { id: encodeGlobalID('Session', shared.id), name: 'mine now' }))).toMatch(/"NotFoundError"/);
    expect(
      await refused(anonymous.data(AppendMessagesDocument, { sessionId: encodeGlobalID('Session', shared.id), messages: [{ type: 'user', content: 'x' }] })),
    ).toMatch(/"NotFoundError"/);

    env.fake.enqueue({ text: 'Off the record.' });
    const sent = await send(anonymous, { content: 'What did the team ask?', sessionId: encodeGlobalID('Session', shared.id), ephemeral: true });
    await until(async () => (await env.server.db.prisma.turn.count({ where: { id: rowId(sent.turn.id) } })) === 0);
    expect(conversation(env.fake.chatRequests[1]!)).toEqual([
      { role: 'user', content: 'Team question' },
      { role: 'assistant', content: 'Team answer' },
      { role: 'user', content: 'What did the team ask?' },
    ]);
    expect(await env.server.db.prisma.message.count({ where: { sessionId: shared.id } })).toBe(2);
    expect((await admin.data(SessionListDocument, {})).sessions.edges.map((e) => rowId(e.node.id))).toContain(shared.id);
  });
});
