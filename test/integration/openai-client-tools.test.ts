import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useAgentServer } from '../support/agents.js';
import { newUser, type Caller } from '../support/client.js';

const env = useAgentServer();

const baseURL = () => env.server.url.replace(/\/graphql$/, '/v1');
const sdk = (user: Caller) => new OpenAI({ baseURL: baseURL(), apiKey: 'unused', defaultHeaders: user.headers, maxRetries: 0 });
const aiSdk = (user: Caller) => createOpenAI({ baseURL: baseURL(), apiKey: 'unused', headers: user.headers });

const weatherParams = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const weatherTool = { type: 'function' as const, function: { name: 'weather', description: 'The weather in a city', parameters: weatherParams } };
const callWeather = { toolCalls: [{ id: 'call_w', name: 'weather', arguments: { city: 'Lisbon' } }] };

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
  );
const turnCount = (user: Caller) => env.server.db.prisma.turn.count({ where: { userId: user.headers['x-user-id'] } });
const nonSystem = (i: number) => (env.fake.chatRequests[i]!.body.messages as { role: string }[]).filter((m) => m.role !== 'system');

describe('client tools on POST /v1/chat/completions (openai SDK)', () => {
  it('hands the call back with finish_reason tool_calls, then answers the tool message', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue(callWeather, { text: 'Sunny in Lisbon.' });
    const asked = [{ role: 'user' as const, content: 'Weather in Lisbon?' }];
    const first = await sdk(user).chat.completions.create({ model: 'general', messages: asked, tools: [weatherTool] });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(first.choices[0]!.message.tool_calls).toEqual([{ id: 'call_w', type: 'function', function: { name: 'weather', arguments: '{"city":"Lisbon"}' } }]);
    expect(env.fake.chatRequests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain('weather');
    expect((first as unknown as { remgraph: { status: string } }).remgraph.status).toBe('TOOL_CALLS');

    const second = await sdk(user).chat.completions.create({
      model: 'general',
      tools: [weatherTool],
      messages: [...asked, first.choices[0]!.message, { role: 'tool', tool_call_id: 'call_w', content: '{"sky":"sunny"}' }],
    });
    expect(second.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Sunny in Lisbon.' } });
    expect(nonSystem(1).slice(-3)).toEqual([
      { role: 'user', content: 'Weather in Lisbon?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'weather', arguments: '{"city":"Lisbon"}' } }] },
      { role: 'tool', tool_call_id: 'call_w', content: '{"sky":"sunny"}' },
    ]);
  });

  it('streams the handed-back call as tool_calls deltas', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue(callWeather);
    const stream = await sdk(user).chat.completions.create({
      model: 'general',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [weatherTool],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([{ index: 0, id: 'call_w', type: 'function', function: { name: 'weather', arguments: '{"city":"Lisbon"}' } }]);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('refuses a result for an unknown call and a malformed parameters schema, storing nothing', async () => {
    const user = newUser(env.server.url);
    const unknown = await refusal(
      sdk(user).chat.completions.create({
        model: 'general',
        tools: [weatherTool],
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'weather', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_other', content: 'x' },
        ],
      }),
    );
    expect(unknown).toBeInstanceOf(OpenAI.BadRequestError);
    expect(unknown.error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('call_other') });
    const malformed = await refusal(
      sdk(user).chat.completions.create({
        model: 'general',
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'nonsense' } } }],
      }),
    );
    expect(malformed).toBeInstanceOf(OpenAI.BadRequestError);
    expect(malformed.error).toMatchObject({ code: 'VALIDATION_FAILED', param: 'tools' });
    expect(await turnCount(user)).toBe(0);
  });
});

describe('client tools on POST /v1/responses', () => {
  const fn = { type: 'function' as const, name: 'weather', description: 'The weather in a city', parameters: weatherParams, strict: false };

  it('hands back a function_call item; function_call_output with previous_response_id answers it in the session', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue(callWeather, { text: 'Sunny in Lisbon.' });
    const first = await sdk(user).responses.create({ model: 'general', input: 'Weather in Lisbon?', tools: [fn] });
    expect(first.status).toBe('completed');
    expect(first.output).toEqual([
      { id: 'fc_call_w', type: 'function_call', status: 'completed', call_id: 'call_w', name: 'weather', arguments: '{"city":"Lisbon"}' },
    ]);
    // Read back, the response still hands the call back.
    const stored = await sdk(user).responses.retrieve(first.id);
    expect(stored).toMatchObject({ id: first.id, status: 'completed', output: first.output, usage: first.usage });
    const second = await sdk(user).responses.create({
      model: 'general',
      previous_response_id: first.id,
      tools: [fn],
      input: [{ type: 'function_call_output', call_id: 'call_w', output: '{"sky":"sunny"}' }],
    });
    expect(second.output_text).toBe('Sunny in Lisbon.');
    expect(nonSystem(1).slice(-3)).toEqual([
      { role: 'user', content: 'Weather in Lisbon?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'weather', arguments: '{"city":"Lisbon"}' } }] },
      { role: 'tool', tool_call_id: 'call_w', content: '{"sky":"sunny"}' },
    ]);

    const wrong = await refusal(
      sdk(user).responses.create({
        model: 'general',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: 'call_w', output: 'x' }],
      }),
    );
    expect(wrong).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('streams the function_call item with its argument deltas', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue(callWeather);
    const events = [];
    for await (const event of sdk(user).responses.stream({ model: 'general', input: 'Weather?', tools: [fn] })) events.push(event);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(done.response.output).toMatchObject([{ type: 'function_call', call_id: 'call_w', name: 'weather', arguments: '{"city":"Lisbon"}' }]);
  });
});

describe('client tools with the Vercel AI SDK', () => {
  const tools = (ran: string[]) => ({
    weather: tool({
      description: 'The weather in a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        ran.push(city);
        return { sky: 'sunny' };
      },
    }),
  });

  it('generateText with the default (Responses) provider runs the tool and comes back with the answer', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue(callWeather, { text: 'Sunny in Lisbon.' });
    const ran: string[] = [];
    const result = await generateText({ model: aiSdk(user)('general'), prompt: 'Weather in Lisbon?', tools: tools(ran), stopWhen: stepCountIs(3) });
    expect(ran).toEqual(['Lisbon']);
    expect(result.text).toBe('Sunny in Lisbon.');
  });

  it('streamText, and the chat provider, likewise', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue(callWeather, { text: 'Sunny in Lisbon.' }, callWeather, { text: 'Still sunny.' });
    const ran: string[] = [];
    const streamed = streamText({ model: aiSdk(user)('general'), prompt: 'Weather in Lisbon?', tools: tools(ran), stopWhen: stepCountIs(3) });
    expect(await streamed.text).toBe('Sunny in Lisbon.');
    const chat = await generateText({ model: aiSdk(user).chat('general'), prompt: 'Weather in Lisbon?', tools: tools(ran), stopWhen: stepCountIs(3) });
    expect(chat.text).toBe('Still sunny.');
    expect(ran).toEqual(['Lisbon', 'Lisbon']);
  });
});
