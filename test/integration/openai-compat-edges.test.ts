import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { registerAgent, useAgentServer } from '../support/agents.js';
import { newUser, postGraphQL, type Caller } from '../support/client.js';
import { capturingLogger } from '../support/log-capture.js';

const log = capturingLogger();
const env = useAgentServer({}, { logger: log.logger });

function sdk(user: Caller) {
  return new OpenAI({ baseURL: env.server.url.replace(/\/graphql$/, '/v1'), apiKey: 'unused', maxRetries: 0, defaultHeaders: user.headers });
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
  );

describe('/v1 details a client trips on', () => {
  it('names the unknown provider of a model string and the configured ones', async () => {
    const user = newUser(env.server.url);
    const error = await refusal(sdk(user).chat.completions.create({ model: 'general@nope:some-model', messages: [{ role: 'user', content: 'hi' }] }));
    expect(error.status).toBe(400);
    expect(error.message).toContain('"nope"');
    expect(error.message).toMatch(/Configured providers: openai/);
    expect((error.error as { param?: string }).param).toBe('model');
  });

  it('separates the text of successive model calls with a blank line', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: doer\ndescription: Do.\ntools:\n  - name: register_metadata\n');
    env.fake.enqueue({ text: 'Let me note that.', toolCalls: [{ name: 'register_metadata', arguments: { confidence: 0.5 } }] }, { text: 'Noted.' });
    const completion = await sdk(user).chat.completions.create({ model: 'doer', messages: [{ role: 'user', content: 'Note it' }] });
    expect(completion.choices[0]!.message.content).toBe('Let me note that.\n\nNoted.');
  });

  it.each([
    ['n', { n: 2 }, 'only 1 is supported'],
    ['logprobs', { logprobs: true }, 'log probabilities are not available'],
    ['top_logprobs', { top_logprobs: 3 }, 'log probabilities are not available'],
  ])('refuses %s with a 400 instead of ignoring it', async (param, extra, text) => {
    const user = newUser(env.server.url);
    const error = await refusal(sdk(user).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'hi' }], ...extra }));
    expect(error.status).toBe(400);
    expect(error.message).toContain(text);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', param, code: 'VALIDATION_FAILED' });
    expect(env.fake.chatRequests).toHaveLength(0);
  });

  it('accepts n: 1 and logprobs: false, which some clients always send', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'ok' });
    const completion = await sdk(user).chat.completions.create({ model: 'general', messages: [{ role: 'user', content: 'hi' }], n: 1, logprobs: false });
    expect(completion.choices[0]!.message.content).toBe('ok');
  });

  it('lists only the agents people chat with as models (no router, dreaming or evaluators)', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: judge\nkind: evaluator\ndescription: Judge.\n');
    await registerAgent(user, 'name: helper-bot\naudience: internal\ndescription: Internal.\n');
    const models = (await sdk(user).models.list()).data.map((m) => m.id);
    expect(models).toContain('general');
    expect(models).not.toContain('judge');
    expect(models).not.toContain('helper-bot');
    for (const builtIn of ['router', 'dreaming']) expect(models).not.toContain(builtIn);
  });
});

describe('GraphQL client errors', () => {
  it('logs a mistyped variable as the client’s error, without a stack trace', async () => {
    const user = newUser(env.server.url);
    const res = await postGraphQL(env.server.url, { query: 'query($id: ID!) { session(id: $id) { id } }', variables: { id: { not: 'an id' } } }, user.headers);
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.message).toBe('Variable "$id" got invalid value { not: "an id" }; ID cannot represent value: { not: "an id" }');
    expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const lines = log.lines().filter((l) => JSON.stringify(l).includes('ID cannot represent value'));
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[30, 'refused a request: invalid variable value']]);
    expect(JSON.stringify(lines)).not.toContain('stack');
  });
});
