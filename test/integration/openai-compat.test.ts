import { SignJWT } from 'jose';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { GATED_AGENT, followTurn, registerAgent, useAgentServer } from '../support/agents.js';
import { caller, collect, newUser, wsClient, type Caller } from '../support/client.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { CancelTurnDocument, DecideApprovalDocument, SessionDocument, TurnDocument, TurnEventsDocument } from '../generated/graphql.js';

// At most two turns of a user run at once, so the quota test reaches the limit quickly.
const env = useAgentServer({ MAX_AGENT_DEPTH: '2', MAX_CONCURRENT_TURNS_PER_USER: '2' });

/** The official SDK pointed at remgraph, as the given user (header identity). */
function sdk(user: Caller, extra: Record<string, string> = {}) {
  return new OpenAI({ baseURL: env.server.url.replace(/\/graphql$/, '/v1'), apiKey: 'unused', maxRetries: 0, defaultHeaders: { ...user.headers, ...extra } });
}

type Remgraph = { session_id: string; turn_id: string; status: string; approvals?: { id: string; tool: string; arguments: unknown; agent_path: string[] }[] };
const remgraphOf = (value: unknown) => (value as { remgraph: Remgraph }).remgraph;

async function streamAll(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** The API error a request ended with (it must fail). */
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
  );

const textOf = (chunks: OpenAI.Chat.Completions.ChatCompletionChunk[]) => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');

describe('POST /v1/chat/completions', () => {
  it('answers without streaming, with usage, through a turn GraphQL can see', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Hello from remgraph.', usage: { prompt_tokens: 30, completion_tokens: 4 } });
    const completion = await sdk(user).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'Hi!' }] });

    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('general');
    expect(completion.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: 'Hello from remgraph.', refusal: null }, logprobs: null, finish_reason: 'stop' },
    ]);
    expect(completion.usage).toEqual({ prompt_tokens: 30, completion_tokens: 4, total_tokens: 34 });
    const ext = remgraphOf(completion);
    expect(ext.status).toBe('COMPLETED');

    const turn = (await user.data(TurnDocument, { id: ext.turn_id })).turn!;
    expect(turn).toMatchObject({ status: 'COMPLETED', agent: 'general', usage: { inputTokens: 30, outputTokens: 4 } });
    expect(turn.session.id).toBe(ext.session_id);
    expect(turn.session.messages.edges.map((e) => [e.node.type, e.node.content])).toEqual([
      ['user', 'Hi!'],
      ['assistant', 'Hello from remgraph.'],
    ]);
    expect(completion.id).toBe(`chatcmpl-${Buffer.from(ext.turn_id, 'base64').toString().split(':')[1]}`);
  });

  it('streams content chunks, then the finish reason, then usage; continues the session named in metadata', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: ['The ', 'answer ', 'is 42.'], usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const first = await sdk(user).chat.completions.create({
      model: 'general',
      messages: [{ role: 'user', content: 'What is the answer?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = await streamAll(first);

    expect(chunks.map((c) => c.object)).toEqual(chunks.map(() => 'chat.completion.chunk'));
    expect(chunks.map((c) => [c.choices[0]?.delta ?? null, c.choices[0]?.finish_reason ?? null])).toEqual([
      [{ role: 'assistant', content: '' }, null],
      [{ content: 'The ' }, null],
      [{ content: 'answer ' }, null],
      [{ content: 'is 42.' }, null],
      [{}, 'stop'],
      [null, null],
    ]);
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const ext = remgraphOf(chunks.at(-2));

    // The session keeps the conversation: only the new user message is needed, and system messages
    // are instructions for this turn.
    env.fake.enqueue({ text: 'You asked about the answer.' });
    const second = await sdk(user).chat.completions.create({
      model: 'general',
      messages: [
        { role: 'system', content: 'Answer in one sentence.' },
        { role: 'user', content: 'What did I ask?' },
      ],
      metadata: { session_id: ext.session_id },
    });
    expect(remgraphOf(second).session_id).toBe(ext.session_id);
    const sent = env.fake.chatRequests[1]!.body.messages as { role: string; content: string }[];
    expect(sent.filter((m) => m.role !== 'system')).toEqual([
      { role: 'user', content: 'What is the answer?' },
      { role: 'assistant', content: 'The answer is 42.' },
      { role: 'user', content: 'What did I ask?' },
    ]);
    expect(
      sent
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n'),
    ).toContain('Answer in one sentence.');
    const session = (await user.data(SessionDocument, { id: ext.session_id })).session!;
    expect(session.messages.edges.map((e) => e.node.content)).toEqual([
      'What is the answer?',
      'The answer is 42.',
      'What did I ask?',
      'You asked about the answer.',
    ]);
  });

  it('continues a session named by the X-Session-Id header or by `user`', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'one' }, { text: 'two' }, { text: 'three' });
    const first = await sdk(user).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'first' }] });
    const sessionId = remgraphOf(first).session_id;
    const second = await sdk(user, { 'x-session-id': sessionId }).chat.completions.create({
      model: 'general',
      messages: [{ role: 'user', content: 'second' }],
    });
    const rawId = Buffer.from(sessionId, 'base64').toString().split(':')[1]!;
    const third = await sdk(user).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'third' }], user: rawId });
    expect([remgraphOf(second).session_id, remgraphOf(third).session_id]).toEqual([sessionId, sessionId]);
    expect(env.fake.chatRequests[2]!.body.messages.filter((m: { role: string }) => m.role === 'user').map((m: { content: string }) => m.content)).toEqual([
      'first',
      'second',
      'third',
    ]);
  });

  it('keeps tool activity and child agents out of the text, and sends the delegated answer once', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: boss\ndescription: You delegate.\ntools:\n  - name: ask_agent\n  - name: action\n');
    await registerAgent(user, 'name: researcher\ndescription: You research.\ntools:\n  - name: action\n');
    const answer = 'Lisbon has 545,000 inhabitants.';
    env.fake.enqueue(
      { text: 'Let me check. ', toolCalls: [{ id: 'act', name: 'action', arguments: { type: 'progress', payload: { step: 1 } } }] },
      { toolCalls: [{ id: 'ask', name: 'ask_agent', arguments: { agent_name: 'researcher', input_text: 'How big is Lisbon?' } }] },
      { text: 'Child thinking out loud.', toolCalls: [{ id: 'child-act', name: 'action', arguments: { type: 'progress' } }] },
      { text: answer },
      { text: answer },
    );
    const chunks = await streamAll(
      await sdk(user).chat.completions.create({ model: 'boss', messages: [{ role: 'user', content: 'How big is Lisbon?' }], stream: true }),
    );
    // Text streamed before a tool call is the agent's own, so it stays (a paragraph of its own); the child's text does not.
    expect(textOf(chunks)).toBe(`Let me check. \n\n${answer}`);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.every((c) => c.choices.every((choice) => !choice.delta.tool_calls))).toBe(true);
  });

  it('ends the stream when the turn pauses for approval, naming the approval; the decision resumes the turn', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'gated', name: 'action', arguments: { type: 'refund', payload: { amount: 30 } } }] }, { text: 'Refunded.' });
    const chunks = await streamAll(
      await sdk(user).chat.completions.create({
        model: 'careful',
        messages: [{ role: 'user', content: 'Refund order 7' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );

    const last = chunks.at(-1)!;
    expect(last.choices[0]!.finish_reason).toBe('approval_required');
    const ext = remgraphOf(last);
    expect(ext.status).toBe('AWAITING_APPROVAL');
    expect(ext.approvals).toEqual([
      { id: expect.any(String), tool: 'action', arguments: { type: 'refund', payload: { amount: 30 } }, agent_path: ['careful'] },
    ]);
    expect(textOf(chunks)).toBe('');

    const decided = await user.data(DecideApprovalDocument, { id: ext.approvals![0]!.id, approve: true });
    expect(decided.decideApproval.__typename).toBe('DecideApprovalSuccess');
    const events = await followTurn(env.server.url, user, ext.turn_id);
    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED', content: 'Refunded.' });
  });

  it('ends a child’s pause the same way, and without streaming', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: boss\ndescription: You delegate.\ntools:\n  - name: ask_agent\n');
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue(
      { toolCalls: [{ id: 'ask', name: 'ask_agent', arguments: { agent_name: 'careful', input_text: 'refund it' } }] },
      { toolCalls: [{ id: 'gated', name: 'action', arguments: { type: 'refund' } }] },
    );
    const completion = await sdk(user).chat.completions.create({ model: 'boss', messages: [{ role: 'user', content: 'Refund order 8' }] });
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'approval_required', message: { content: '' } });
    expect(completion.usage).toBeNull();
    expect(remgraphOf(completion).approvals).toEqual([
      { id: expect.any(String), tool: 'action', arguments: { type: 'refund' }, agent_path: ['boss', 'careful'] },
    ]);
    // Leave nothing running: reject, and let the child and the parent finish.
    env.fake.enqueue({ text: 'Not refunded.' }, { text: 'The refund was rejected.' });
    await user.data(DecideApprovalDocument, { id: remgraphOf(completion).approvals![0]!.id, approve: false });
    const events = await followTurn(env.server.url, user, remgraphOf(completion).turn_id);
    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
  });

  it('runs the agent on the model named after `@`', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'ok' });
    const completion = await sdk(user).chat.completions.create({ model: 'general@openai:other-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(env.fake.chatRequests[0]!.body.model).toBe('other-model');
    expect((await user.data(TurnDocument, { id: remgraphOf(completion).turn_id })).turn!.model).toBe('openai:other-model');
  });
});

describe('stateless clients (the whole conversation in every request, no session named)', () => {
  it('gives the model the earlier messages as the turn’s history, in order; the new session stores only the new exchange', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Your name is Ada.' });
    const completion = await sdk(user).chat.completions.create({
      model: 'general',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'My name is Ada.' },
        { role: 'assistant', content: 'Hello Ada!' },
        { role: 'user', content: 'What is my name?' },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe('Your name is Ada.');

    const sent = env.fake.chatRequests[0]!.body.messages as { role: string; content: string }[];
    expect(sent.filter((m) => m.role !== 'system')).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Hello Ada!' },
      { role: 'user', content: 'What is my name?' },
    ]);
    expect(
      sent
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n'),
    ).toContain('Be brief.');
    const session = (await user.data(SessionDocument, { id: remgraphOf(completion).session_id })).session!;
    expect(session.messages.edges.map((e) => [e.node.type, e.node.content])).toEqual([
      ['user', 'What is my name?'],
      ['assistant', 'Your name is Ada.'],
    ]);
  });

  it('passes earlier tool calls and their results on in order, and refuses a result that answers no call', async () => {
    const user = newUser(env.server.url);
    const call = { id: 'call_1', type: 'function' as const, function: { name: 'search', arguments: '{"query":"LOOKUP \\"lisbon\\""}' } };
    env.fake.enqueue({ text: 'Still sunny.' });
    await streamAll(
      await sdk(user).chat.completions.create({
        model: 'general',
        stream: true,
        messages: [
          { role: 'user', content: 'Weather in Lisbon?' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: 'call_1', content: '{"forecast":"sunny"}' },
          { role: 'assistant', content: 'Sunny.' },
          { role: 'user', content: 'And now?' },
        ],
      }),
    );
    const sent = (env.fake.chatRequests[0]!.body.messages as { role: string }[]).filter((m) => m.role !== 'system');
    expect(sent).toEqual([
      { role: 'user', content: 'Weather in Lisbon?' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"forecast":"sunny"}' },
      { role: 'assistant', content: 'Sunny.' },
      { role: 'user', content: 'And now?' },
    ]);

    const orphan = await refusal(
      sdk(user).chat.completions.create({
        model: 'general',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'tool', tool_call_id: 'nope', content: 'x' },
          { role: 'user', content: 'again' },
        ],
      }),
    );
    expect(orphan).toBeInstanceOf(OpenAI.BadRequestError);
    expect(orphan.error).toMatchObject({ param: 'messages.1.tool_call_id', code: 'VALIDATION_FAILED' });
  });

  it('reads a named session’s own conversation, not the client’s copy of it', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
    const first = await sdk(user).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'First question' }] });
    await sdk(user).chat.completions.create({
      model: 'general',
      messages: [
        { role: 'user', content: 'A copy the client changed' },
        { role: 'assistant', content: 'Edited.' },
        { role: 'user', content: 'Second question' },
      ],
      metadata: { session_id: remgraphOf(first).session_id },
    });
    const sent = (env.fake.chatRequests[1]!.body.messages as { role: string; content: string }[]).filter((m) => m.role !== 'system');
    expect(sent.map((m) => m.content)).toEqual(['First question', 'First answer.', 'Second question']);
  });
});

describe('request parameters', () => {
  const CAPPED = 'name: capped\ndescription: You answer briefly.\nmax_tokens: 100\ntools:\n  - name: search\n  - name: action\n';

  it('sends temperature, top_p, stop, seed and max_tokens to the model, max_tokens capped at the agent’s own', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, CAPPED);
    env.fake.enqueue({ text: 'one' }, { text: 'two' });
    await sdk(user).chat.completions.create({
      model: 'capped',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.3,
      top_p: 0.9,
      stop: 'END',
      seed: 42,
      max_tokens: 5000,
    });
    await streamAll(
      await sdk(user).chat.completions.create({
        model: 'capped',
        messages: [{ role: 'user', content: 'hi' }],
        stop: ['A', 'B'],
        max_completion_tokens: 40,
        stream: true,
      }),
    );

    const [first, second] = env.fake.chatRequests.map((r) => r.body);
    expect(first).toMatchObject({ temperature: 0.3, top_p: 0.9, stop: ['END'], seed: 42, max_tokens: 100 });
    expect(second).toMatchObject({ stop: ['A', 'B'], max_tokens: 40 });
    expect(second).not.toHaveProperty('seed');

    const hot = await refusal(sdk(user).chat.completions.create({ model: 'capped', messages: [{ role: 'user', content: 'hi' }], temperature: 3 }));
    expect(hot).toBeInstanceOf(OpenAI.BadRequestError);
    expect(hot.error).toMatchObject({ param: 'temperature', code: 'VALIDATION_FAILED' });
  });

  it('offers only the agent tools a request names (with parameters or without), and a client tool beside them', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, CAPPED);
    const named = (name: string) => ({ type: 'function' as const, function: { name } });
    const fn = (name: string) => ({ type: 'function' as const, function: { name, parameters: { type: 'object', properties: {} } } });
    env.fake.enqueue({ text: 'ok' }, { text: 'ok' });
    await sdk(user).chat.completions.create({ model: 'capped', messages: [{ role: 'user', content: 'hi' }], tools: [named('action')] });
    expect(env.fake.chatRequests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['action']);
    await sdk(user).chat.completions.create({ model: 'capped', messages: [{ role: 'user', content: 'hi' }], tools: [named('action'), fn('get_weather')] });
    expect(env.fake.chatRequests[1]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['action', 'get_weather']);

    // With parameters (as SDKs that require them send), the agent's tool's name still restricts to it.
    env.fake.enqueue({ text: 'ok' });
    await sdk(user).chat.completions.create({ model: 'capped', messages: [{ role: 'user', content: 'hi' }], tools: [fn('action')] });
    expect(env.fake.chatRequests[2]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['action']);
    expect(await env.server.db.prisma.turn.count({ where: { userId: user.headers['x-user-id'] } })).toBe(3);
  });

  it('answers in a JSON object for json_object', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ json: { city: 'Lisbon' } });
    const completion = await sdk(user).chat.completions.create({
      model: 'general',
      messages: [{ role: 'user', content: 'Reply in JSON: which city?' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ city: 'Lisbon' });
    expect(env.fake.chatRequests[0]!.body.response_format).toEqual({ type: 'json_object' });
  });

  it('validates a json_schema answer like a structured agent’s: one repair, and only the valid answer reaches the client', async () => {
    const user = newUser(env.server.url);
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const response_format = { type: 'json_schema' as const, json_schema: { name: 'place', schema, strict: true } };
    env.fake.enqueue({ text: 'Lisbon, of course.' }, { json: { city: 'Lisbon' } });
    const chunks = await streamAll(
      await sdk(user).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'Which city?' }], response_format, stream: true }),
    );
    expect(textOf(chunks)).toBe('{"city":"Lisbon"}');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    const [asked, repair] = env.fake.chatRequests.map((r) => r.body);
    expect(asked.response_format).toEqual(response_format);
    expect(repair.messages.at(-1).content).toMatch(/^Your previous reply did not match the required JSON Schema:\n- not valid JSON/);

    env.fake.enqueue({ json: { town: 'Porto' } }, { json: { town: 'Porto' } });
    const failed = await refusal(
      sdk(user).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'Which city?' }], response_format }),
    );
    // A failed turn is the request's whole answer: a 400, which SDKs do not retry into another turn.
    expect(failed).toBeInstanceOf(OpenAI.BadRequestError);
    expect(failed.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('did not match the requested response_format after one repair'),
    });

    const bad = await refusal(
      sdk(user).chat.completions.create({
        model: 'general',
        messages: [{ role: 'user', content: 'hi' }],
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'nope' } } },
      }),
    );
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect(bad.error).toMatchObject({ param: 'response_format.json_schema.schema', code: 'VALIDATION_FAILED' });
  });
});

describe('finish reasons', () => {
  it('says `length` when the agent stopped at a limit, streamed or not', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: hasty\ndescription: One step only.\nmax_iterations: 1\ntools:\n  - name: action\n');
    const step = { text: 'Working on it. ', toolCalls: [{ name: 'action', arguments: { type: 'progress' } }] };
    env.fake.enqueue(step, step);
    const whole = await sdk(user).chat.completions.create({ model: 'hasty', messages: [{ role: 'user', content: 'go' }] });
    expect(whole.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'Working on it. ' } });
    expect(remgraphOf(whole).status).toBe('MAX_ITERATIONS');
    const chunks = await streamAll(await sdk(user).chat.completions.create({ model: 'hasty', messages: [{ role: 'user', content: 'go' }], stream: true }));
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('length');
    expect(remgraphOf(chunks.at(-1)).status).toBe('MAX_ITERATIONS');
  });

  it('ends a cancelled turn with `stop` and what was said so far, streamed or not', async () => {
    const user = newUser(env.server.url);
    const partial = { text: ['Partial ', 'answer'], stallAfterChunks: 2 };
    env.fake.enqueue(partial, partial);

    const { data: stream, response } = await sdk(user)
      .chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'long story' }], stream: true })
      .withResponse();
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      if (chunk.choices[0]?.delta.content === 'Partial ')
        expect((await user.data(CancelTurnDocument, { id: response.headers.get('x-turn-id')! })).cancelTurn.__typename).toBe('CancelTurnSuccess');
    }
    expect(textOf(chunks)).toBe('Partial ');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(remgraphOf(chunks.at(-1)).status).toBe('CANCELLED');

    const pending = sdk(user).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'long story' }] });
    await env.fake.waitForRequests(2, 60_000, 'chat/completions');
    const running = await env.server.db.prisma.turn.findFirstOrThrow({ where: { userId: user.headers['x-user-id'], status: 'RUNNING' } });
    const turnId = Buffer.from(`Turn:${running.id}`).toString('base64');
    const client = wsClient(env.server.url, user.headers);
    const sub = collect(client, TurnEventsDocument, { turnId });
    await until(() => sub.items.some((i) => i.data?.turnEvents.__typename === 'ContentEvent'));
    await user.data(CancelTurnDocument, { id: turnId });
    await sub.done;
    await client.dispose();
    const whole = await pending;
    expect(whole.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Partial ' } });
    expect(remgraphOf(whole).status).toBe('CANCELLED');
  });
});

describe('quotas', () => {
  it('answers a turn over the caller’s quota with 429 and Retry-After in seconds', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: ['Busy'], hang: true }, { text: ['Busy'], hang: true });
    const busy = await Promise.all(
      [1, 2].map(() =>
        sdk(user)
          .chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'take your time' }], stream: true })
          .withResponse(),
      ),
    );
    await env.fake.waitForRequests(2, 60_000, 'chat/completions');

    const refused = await refusal(sdk(user).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'one more' }] }));
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused.error).toMatchObject({ type: 'rate_limit_error', code: 'RATE_LIMITED', message: expect.stringContaining('MAX_CONCURRENT_TURNS_PER_USER') });
    expect(refused.headers?.get('retry-after')).toBe('2');

    for (const { response } of busy) await user.data(CancelTurnDocument, { id: response.headers.get('x-turn-id')! });
    for (const { data } of busy) expect(remgraphOf((await streamAll(data)).at(-1)).status).toBe('CANCELLED');
  });
});

describe('errors as OpenAI error bodies', () => {
  it('names an unknown agent, a bad message list and a bad session with their codes; nothing is stored', async () => {
    const user = newUser(env.server.url);
    const client = sdk(user);

    const unknown = await refusal(client.chat.completions.create({ model: 'nobody', messages: [{ role: 'user', content: 'hi' }] }));
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown.error).toEqual({ message: 'Agent "nobody" not found', type: 'not_found_error', param: null, code: 'NOT_FOUND' });

    const notUser = await refusal(
      client.chat.completions.create({
        model: 'general',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
      }),
    );
    expect(notUser).toBeInstanceOf(OpenAI.BadRequestError);
    expect(notUser.error).toMatchObject({ type: 'invalid_request_error', param: 'messages.1.role', code: 'VALIDATION_FAILED' });

    const image = await refusal(
      client.chat.completions.create({
        model: 'general',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }],
      }),
    );
    expect(image.error).toMatchObject({ param: 'messages.0.content.0.type', code: 'VALIDATION_FAILED' });

    const badSession = await refusal(
      client.chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'hi' }], metadata: { session_id: 'nope' } }),
    );
    expect(badSession.error).toMatchObject({ param: 'metadata.session_id', code: 'VALIDATION_FAILED' });

    const other = newUser(env.server.url);
    env.fake.enqueue({ text: 'mine' });
    const theirs = remgraphOf(await sdk(other).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'private' }] })).session_id;
    const foreign = await refusal(
      client.chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'hi' }], metadata: { session_id: theirs } }),
    );
    expect(foreign).toBeInstanceOf(OpenAI.NotFoundError);
    expect(foreign.error).toMatchObject({ message: 'Session not found', code: 'NOT_FOUND' });

    const count = await env.server.db.prisma.session.count({ where: { userId: user.headers['x-user-id'] } });
    expect(count).toBe(0);
  });

  it('answers malformed JSON, a non-JSON body, a foreign origin, a wrong method and an oversized body without a stack trace', async () => {
    const base = env.server.url.replace(/\/graphql$/, '/v1');
    const user = newUser(env.server.url);
    const bad = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json' },
      body: '{"model":',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { message: 'The request body is not valid JSON', type: 'invalid_request_error', param: null, code: 'VALIDATION_FAILED' },
    });

    const plain = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'text/plain' },
      body: '{"model":"general","messages":[{"role":"user","content":"hi"}]}',
    });
    // A body any web page could send without a preflight is refused like a foreign origin.
    expect(plain.status).toBe(403);
    expect((await plain.json()).error).toMatchObject({ message: 'Send the body as JSON (content-type: application/json)', code: 'FORBIDDEN' });
    const foreign = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json', origin: 'https://evil.example' },
      body: '{}',
    });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error).toMatchObject({ message: 'Origin not allowed (CORS_ORIGINS)', code: 'FORBIDDEN' });

    const get = await fetch(`${base}/chat/completions`, { headers: user.headers });
    expect(get.status).toBe(405);
    expect((await get.json()).error.code).toBe('METHOD_NOT_ALLOWED');

    const huge = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'general', messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }] }),
    });
    expect(huge.status).toBe(413);
    expect((await huge.json()).error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('reports a failed turn as an error: a 400 body (not retried into another turn), or an error event in a stream', async () => {
    const user = newUser(env.server.url);
    const fail = { status: 400, error: { message: 'context too long', type: 'invalid_request_error' } };
    env.fake.enqueue(fail, fail);
    const error = await refusal(sdk(user).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'hi' }] }));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'server_error', code: 'MODEL_ERROR' });

    const stream = await sdk(user).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const streamed = await refusal(streamAll(stream));
    expect(streamed).toBeInstanceOf(OpenAI.APIError);
    expect((streamed as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'server_error', code: 'MODEL_ERROR' });
  });
});

describe('GET /v1/models', () => {
  it('lists the caller’s agents, not another user’s', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: my-private-agent\ndescription: Mine only.\n');
    const ids = (await sdk(user).models.list()).data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['general', 'my-private-agent']));
    expect(await sdk(user).models.retrieve('my-private-agent')).toMatchObject({ id: 'my-private-agent', object: 'model', owned_by: 'user' });

    const other = newUser(env.server.url, user.headers['x-tenant-id']);
    expect((await sdk(other).models.list()).data.map((m) => m.id)).not.toContain('my-private-agent');
    await expect(sdk(other).models.retrieve('my-private-agent')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe('with JWT auth', () => {
  const SECRET = 'openai-compat-secret-that-is-long-enough!!';
  let jwtServer: TestServer;
  afterAll(async () => {
    await jwtServer?.stop();
  });

  it('takes the API key as the bearer token, like GraphQL, and refuses a missing or bad one with 401', async () => {
    jwtServer = await startTestServer({ AUTH_JWT_SECRET: SECRET, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: env.fake.url, LLM_DEFAULT_MODEL: 'openai:fake-model' });
    const baseURL = jwtServer.url.replace(/\/graphql$/, '/v1');
    const token = await new SignJWT({ sub: 'jwt-user', tenant_id: `jwt-${Date.now()}` })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(SECRET));

    env.fake.enqueue({ text: 'Hello, token holder.' });
    const ok = await new OpenAI({ baseURL, apiKey: token, maxRetries: 0 }).chat.completions.create({
      model: 'general',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(ok.choices[0]!.message.content).toBe('Hello, token holder.');
    const turn = (await caller(jwtServer.url, { authorization: `Bearer ${token}` }).data(TurnDocument, { id: remgraphOf(ok).turn_id })).turn!;
    expect(turn.status).toBe('COMPLETED');

    const refused = await new OpenAI({ baseURL, apiKey: 'not-a-jwt', maxRetries: 0 }).models.list().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).error).toEqual({
      message: 'Invalid token',
      type: 'authentication_error',
      param: null,
      code: 'UNAUTHENTICATED',
    });
  });
});

async function until(check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
