import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { generateText } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { rowId } from '../../src/http/global-ids.js';
import { forgetExpiredRequests } from '../../src/turns/turn-requests.js';
import { useAgentServer } from '../support/agents.js';
import { newUser, type Caller } from '../support/client.js';

const env = useAgentServer();

const baseURL = () => env.server.url.replace(/\/graphql$/, '/v1');

/**
 * A fetch whose first call is cut once the model was asked (the turn runs), as a dropped connection
 * is: the client gets the network error its SDK retries, the server a closed connection.
 */
function droppingOnce(): typeof fetch {
  let calls = 0;
  return async (input, init) => {
    if (calls++ > 0) return fetch(input, init);
    const controller = new AbortController();
    const pending = fetch(input, { ...init, signal: controller.signal }).catch(() => undefined);
    await env.fake.waitForRequests(1, 10_000, 'chat/completions');
    controller.abort();
    await pending;
    throw new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
  };
}

/** Each client at its default retry settings, set up as its docs show, asking one question. */
const clients: Record<string, (user: Caller, prompt: string, fetchFn?: typeof fetch) => Promise<string>> = {
  'openai SDK, chat completions': async (user, prompt, fetchFn) => {
    const client = new OpenAI({ baseURL: baseURL(), apiKey: 'unused', defaultHeaders: user.headers, fetch: fetchFn });
    return (await client.chat.completions.create({ model: 'general', messages: [{ role: 'user', content: prompt }] })).choices[0]!.message.content!;
  },
  'openai SDK, responses': async (user, prompt, fetchFn) => {
    const client = new OpenAI({ baseURL: baseURL(), apiKey: 'unused', defaultHeaders: user.headers, fetch: fetchFn });
    return (await client.responses.create({ model: 'general', input: prompt })).output_text;
  },
  'AI SDK, default provider (responses)': async (user, prompt, fetchFn) => {
    const openai = createOpenAI({ baseURL: baseURL(), apiKey: 'unused', headers: user.headers, fetch: fetchFn });
    return (await generateText({ model: openai('general'), prompt })).text;
  },
  'AI SDK, chat completions': async (user, prompt, fetchFn) => {
    const openai = createOpenAI({ baseURL: baseURL(), apiKey: 'unused', headers: user.headers, fetch: fetchFn });
    return (await generateText({ model: openai.chat('general'), prompt })).text;
  },
  'LangChain ChatOpenAI': async (user, prompt, fetchFn) => {
    const llm = new ChatOpenAI({ model: 'general', apiKey: 'unused', configuration: { baseURL: baseURL(), defaultHeaders: user.headers, fetch: fetchFn } });
    return String((await llm.invoke(prompt)).content);
  },
};

const turnCount = (user: Caller) => env.server.db.prisma.turn.count({ where: { userId: user.headers['x-user-id'] } });

describe.each(Object.entries(clients))('one request, one turn: %s', (_name, ask) => {
  it('answers a model failure no retry can fix with a 400 the client does not retry: one turn, one model call', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ status: 400, error: { message: 'context too long', type: 'invalid_request_error' } });
    await expect(ask(user, 'hi')).rejects.toThrow(/context too long/);
    expect(await turnCount(user)).toBe(1);
    expect(env.fake.chatRequests).toHaveLength(1);
  });

  it('recovers from a model that fails once within the one turn', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ status: 500, error: { message: 'overloaded', type: 'server_error' } }, { text: 'Recovered.' });
    expect(await ask(user, 'hi')).toBe('Recovered.');
    expect(await turnCount(user)).toBe(1);
  });

  it('joins the running turn when the client retries after its connection dropped', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Answered once.', delayMs: 300 });
    expect(await ask(user, 'a slow question', droppingOnce())).toBe('Answered once.');
    expect(await turnCount(user)).toBe(1);
    expect(env.fake.chatRequests).toHaveLength(1);

    // Once the retry got the answer, the same question asked again is a new one.
    env.fake.enqueue({ text: 'Asked again.' });
    expect(await ask(user, 'a slow question')).toBe('Asked again.');
    expect(await turnCount(user)).toBe(2);
  });
});

describe('request keys', () => {
  const post = (user: Caller, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${baseURL()}/chat/completions`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const body = { model: 'general', messages: [{ role: 'user', content: 'hello' }] };

  it('replays the turn of an Idempotency-Key already answered', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Only once.' });
    const first = await post(user, body, { 'idempotency-key': 'order-7' });
    const again = await post(user, body, { 'idempotency-key': 'order-7' });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.headers.get('x-turn-id')).toBe(first.headers.get('x-turn-id'));
    expect((await again.json()).choices[0].message.content).toBe('Only once.');
    expect(await turnCount(user)).toBe(1);

    // Another user's request with the same key is theirs alone.
    env.fake.enqueue({ text: 'Yours.' });
    const other = await post(newUser(env.server.url), body, { 'idempotency-key': 'order-7' });
    expect(other.headers.get('x-turn-id')).not.toBe(first.headers.get('x-turn-id'));
  });

  it('forgets a key once its window has passed, so the table does not grow with every keyed request', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Old.' }, { text: 'Recent.' });
    const old = await post(user, body, { 'idempotency-key': 'old-order' });
    const recent = await post(user, body, { 'idempotency-key': 'recent-order' });
    const turnIds = [old, recent].map((answer) => rowId(answer.headers.get('x-turn-id')!, 'Turn'));
    const requests = () => env.server.db.prisma.turnRequest.findMany({ where: { turnId: { in: turnIds } }, select: { turnId: true } });
    expect(await requests()).toHaveLength(2);

    await env.server.db.prisma.turn.update({ where: { id: turnIds[0] }, data: { finishedAt: new Date(Date.now() - 25 * 3600_000) } });
    await forgetExpiredRequests(env.server.db.sql);
    expect(await requests()).toEqual([{ turnId: turnIds[1] }]);
    // Past its window the key starts a new turn, as it would have without the sweep.
    env.fake.enqueue({ text: 'New.' });
    const again = await post(user, body, { 'idempotency-key': 'old-order' });
    expect(rowId(again.headers.get('x-turn-id')!, 'Turn')).not.toBe(turnIds[0]);
  });

  it('takes the same message sent again, once its answer was delivered, as a new request', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'First.' }, { text: 'Second.' });
    const first = await post(user, body);
    expect((await first.json()).choices[0].message.content).toBe('First.');
    const second = await post(user, body);
    expect((await second.json()).choices[0].message.content).toBe('Second.');
    expect(await turnCount(user)).toBe(2);
  });

  it('gives the same message sent twice at once a turn each: a client waiting for its answer is not retrying', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'One.', delayMs: 200 }, { text: 'Two.', delayMs: 200 });
    const answers = await Promise.all([post(user, body), post(user, body)]);
    expect(new Set(answers.map((a) => a.headers.get('x-turn-id'))).size).toBe(2);
    expect(await turnCount(user)).toBe(2);
  });
});
