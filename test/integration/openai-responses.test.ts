import { createOpenAI } from '@ai-sdk/openai';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { registerAgent, useAgentServer } from '../support/agents.js';
import { newUser, type Caller } from '../support/client.js';
import { SessionDocument, TurnDocument } from '../generated/graphql.js';

const env = useAgentServer();

const baseURL = () => env.server.url.replace(/\/graphql$/, '/v1');

/** The openai SDK pointed at remgraph, as its docs show, as the given user (header identity). */
const sdk = (user: Caller) => new OpenAI({ baseURL: baseURL(), apiKey: 'unused', defaultHeaders: user.headers });

/** The AI SDK's default provider (`openai(model)` is the Responses API), as its docs show. */
const aiSdk = (user: Caller) => createOpenAI({ baseURL: baseURL(), apiKey: 'unused', headers: user.headers });

type Remgraph = { session_id: string; turn_id: string; status: string };
const remgraphOf = (value: unknown) => (value as { remgraph: Remgraph }).remgraph;

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
  );

const turnCount = (user: Caller) => env.server.db.prisma.turn.count({ where: { userId: user.headers['x-user-id'] } });

describe('POST /v1/responses with the openai SDK', () => {
  it('answers a string input with instructions, with usage, through a turn GraphQL can see; GET reads it back', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Hello from remgraph.', usage: { prompt_tokens: 30, completion_tokens: 4 } });
    const response = await sdk(user).responses.create({ model: 'general', instructions: 'Be brief.', input: 'Hi!' });

    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'general', instructions: 'Be brief.', error: null });
    expect(response.output_text).toBe('Hello from remgraph.');
    expect(response.output).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello from remgraph.', annotations: [], logprobs: [] }],
      },
    ]);
    expect(response.usage).toEqual({
      input_tokens: 30,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 4,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 34,
    });
    const sent = env.fake.chatRequests[0]!.body.messages as { role: string; content: string }[];
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'Hi!' });
    expect(
      sent
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n'),
    ).toContain('Be brief.');

    const ext = remgraphOf(response);
    const turn = (await user.data(TurnDocument, { id: ext.turn_id })).turn!;
    expect(turn).toMatchObject({ status: 'COMPLETED', agent: 'general' });
    expect(response.id).toBe(`resp_${Buffer.from(ext.turn_id, 'base64').toString().split(':')[1]}`);

    const stored = await sdk(user).responses.retrieve(response.id);
    expect(stored).toMatchObject({ id: response.id, status: 'completed', output_text: 'Hello from remgraph.', usage: { input_tokens: 30, output_tokens: 4 } });
    await expect(sdk(newUser(env.server.url)).responses.retrieve(response.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('streams the documented event sequence, numbered from 0; previous_response_id continues the session', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: ['The ', 'answer ', 'is 42.'], usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const stream = sdk(user).responses.stream({ model: 'general', input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is the answer?' }] }] });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();

    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta)).toEqual(['The ', 'answer ', 'is 42.']);
    expect(events[7]).toMatchObject({ type: 'response.output_text.done', text: 'The answer is 42.', item_id: `msg_${final.id.slice(5)}` });
    expect(final.output).toMatchObject([{ type: 'message', status: 'completed', content: [{ type: 'output_text', text: 'The answer is 42.' }] }]);
    expect(final).toMatchObject({ status: 'completed', usage: { input_tokens: 12, output_tokens: 3, total_tokens: 15 } });

    env.fake.enqueue({ text: 'You asked about the answer.' });
    const second = await sdk(user).responses.create({ model: 'general', input: 'What did I ask?', previous_response_id: final.id });
    expect(second.previous_response_id).toBe(final.id);
    expect(remgraphOf(second).session_id).toBe(remgraphOf(final).session_id);
    const sent = (env.fake.chatRequests[1]!.body.messages as { role: string; content: string }[]).filter((m) => m.role !== 'system');
    expect(sent).toEqual([
      { role: 'user', content: 'What is the answer?' },
      { role: 'assistant', content: 'The answer is 42.' },
      { role: 'user', content: 'What did I ask?' },
    ]);
  });

  it('passes earlier function calls and their outputs on as history, and offers only the agent tools named', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: tooled\ndescription: You use tools.\ntools:\n  - name: search\n  - name: action\n');
    env.fake.enqueue({ text: 'Still sunny.' });
    await sdk(user).responses.create({
      model: 'tooled',
      tools: [{ type: 'function', name: 'action', parameters: { type: 'object', properties: {} }, strict: false }],
      input: [
        { role: 'user', content: 'Weather in Lisbon?' },
        { type: 'function_call', call_id: 'call_1', name: 'search', arguments: '{"query":"lisbon"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"forecast":"sunny"}' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Sunny.' }] },
        { role: 'user', content: 'And now?' },
      ] as OpenAI.Responses.ResponseInput,
    });
    const body = env.fake.chatRequests[0]!.body;
    expect((body.messages as { role: string }[]).filter((m) => m.role !== 'system')).toEqual([
      { role: 'user', content: 'Weather in Lisbon?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"query":"lisbon"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"forecast":"sunny"}' },
      { role: 'assistant', content: 'Sunny.' },
      { role: 'user', content: 'And now?' },
    ]);
    expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['action']);

    const fn = (name: string) => ({ type: 'function' as const, name, parameters: { type: 'object', properties: {} }, strict: false });
    // The SDK requires parameters: a function named like the agent's tool is still the agent's, not the client's.
    env.fake.enqueue({ text: 'ok' });
    await sdk(user).responses.create({ model: 'tooled', input: 'hi', tools: [fn('action'), fn('get_weather')] });
    expect(env.fake.chatRequests[1]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['action', 'get_weather']);

    const orphan = await refusal(
      sdk(user).responses.create({
        model: 'general',
        input: [
          { type: 'function_call_output', call_id: 'nope', output: 'x' },
          { role: 'user', content: 'again' },
        ],
      }),
    );
    expect(orphan.error).toMatchObject({ param: 'input.0.call_id', code: 'VALIDATION_FAILED' });
    const image = await refusal(
      sdk(user).responses.create({
        model: 'general',
        input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png', detail: 'auto' }] }],
      }),
    );
    expect(image.error).toMatchObject({ param: 'input.0.content.0.type', code: 'VALIDATION_FAILED' });
    expect(await turnCount(user)).toBe(2);
  });

  it('answers in the text.format json_schema, validated like a structured agent’s, and names a bad schema by its field', async () => {
    const user = newUser(env.server.url);
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    env.fake.enqueue({ text: 'Lisbon, of course.' }, { json: { city: 'Lisbon' } });
    const stream = sdk(user).responses.stream({
      model: 'general',
      input: 'Which city?',
      text: { format: { type: 'json_schema', name: 'place', schema, strict: true } },
    });
    const deltas: string[] = [];
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas.push(event.delta);
    expect(deltas).toEqual(['{"city":"Lisbon"}']);
    expect(env.fake.chatRequests[0]!.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'place', schema, strict: true } });

    const bad = await refusal(
      sdk(user).responses.create({ model: 'general', input: 'hi', text: { format: { type: 'json_schema', name: 'x', schema: { type: 'nope' } } } }),
    );
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect(bad.error).toMatchObject({ param: 'text.format.schema', code: 'VALIDATION_FAILED' });
  });

  it('runs `store: false` as an ephemeral turn, which cannot be read back or followed', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Not kept.' });
    const response = await sdk(user).responses.create({ model: 'general', input: 'hi', store: false });
    expect(response).toMatchObject({ store: false, output_text: 'Not kept.' });
    await expect(sdk(user).responses.retrieve(response.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const follow = await refusal(sdk(user).responses.create({ model: 'general', input: 'more', previous_response_id: response.id }));
    expect(follow).toBeInstanceOf(OpenAI.NotFoundError);
    expect(follow.error).toMatchObject({ code: 'NOT_FOUND', message: `Response "${response.id}" not found` });
    const session = (await user.data(SessionDocument, { id: remgraphOf(response).session_id })).session;
    expect(session?.messages.edges ?? []).toEqual([]);
  });

  it('answers a failed turn with a 400 the SDK does not retry, or `response.failed` in a stream; an unknown agent is a 404', async () => {
    const user = newUser(env.server.url);
    const fail = { status: 400, error: { message: 'context too long', type: 'invalid_request_error' } };
    env.fake.enqueue(fail, fail);
    const error = await refusal(sdk(user).responses.create({ model: 'general', input: 'hi' }));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ type: 'server_error', code: 'MODEL_ERROR' });

    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await sdk(user).responses.create({ model: 'general', input: 'hi', stream: true })) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    expect(events[2]).toMatchObject({ response: { status: 'failed', error: { code: 'MODEL_ERROR' } } });
    expect(await turnCount(user)).toBe(2);

    const unknown = await refusal(sdk(user).responses.create({ model: 'nobody', input: 'hi' }));
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown.error).toEqual({ message: 'Agent "nobody" not found', type: 'not_found_error', param: null, code: 'NOT_FOUND' });
  });
});

describe('POST /v1/responses with the AI SDK’s default provider', () => {
  it('generateText and streamText get the answer and usage', async () => {
    const user = newUser(env.server.url);
    const openai = aiSdk(user);
    env.fake.enqueue({ text: 'Hello, AI SDK.', usage: { prompt_tokens: 9, completion_tokens: 3 } });
    const generated = await generateText({ model: openai('general'), system: 'Be kind.', prompt: 'Hi!' });
    expect(generated.text).toBe('Hello, AI SDK.');
    expect(generated.finishReason).toBe('stop');
    expect(generated.usage).toMatchObject({ inputTokens: 9, outputTokens: 3, totalTokens: 12 });
    expect(env.fake.chatRequests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'Hi!' });

    env.fake.enqueue({ text: ['Streamed ', 'words.'], usage: { prompt_tokens: 5, completion_tokens: 2 } });
    const streamed = streamText({ model: openai('general'), prompt: 'Stream, please.' });
    const pieces: string[] = [];
    for await (const piece of streamed.textStream) pieces.push(piece);
    expect(pieces).toEqual(['Streamed ', 'words.']);
    expect(await streamed.finishReason).toBe('stop');
    expect(await streamed.usage).toMatchObject({ inputTokens: 5, outputTokens: 2 });
    expect(await turnCount(user)).toBe(2);
  });
});

describe('POST /v1/responses with LangChain', () => {
  it('ChatOpenAI with useResponsesApi gets the answer and usage, invoked and streamed', async () => {
    const user = newUser(env.server.url);
    const llm = new ChatOpenAI({
      model: 'general',
      apiKey: 'unused',
      useResponsesApi: true,
      configuration: { baseURL: baseURL(), defaultHeaders: user.headers },
    });
    env.fake.enqueue({ text: 'Hello, LangChain.', usage: { prompt_tokens: 7, completion_tokens: 3 } });
    const answer = await llm.invoke([new SystemMessage('Be brief.'), new HumanMessage('Hi!')]);
    expect(answer.text).toBe('Hello, LangChain.');
    expect(answer.usage_metadata).toMatchObject({ input_tokens: 7, output_tokens: 3, total_tokens: 10 });
    expect(env.fake.chatRequests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'Hi!' });

    env.fake.enqueue({ text: ['Streamed ', 'by LangChain.'] });
    const pieces: string[] = [];
    for await (const chunk of await llm.stream('Stream, please.')) if (chunk.text) pieces.push(chunk.text);
    expect(pieces.join('')).toBe('Streamed by LangChain.');
    expect(await turnCount(user)).toBe(2);
  });
});
