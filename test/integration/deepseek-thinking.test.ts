/**
 * DeepSeek's thinking mode with tools: within the tool loop under way, each assistant tool call goes
 * back with its `reasoning_content` (else DeepSeek answers 400), through an approval's pause too; an
 * earlier turn's reasoning never does. The fake DeepSeek checks both, as a configured `deepseek`
 * provider (no setting: its default) is called by a real server's turns.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DecideApprovalDocument } from '../generated/graphql.js';
import { chat, followTurn, GATED_AGENT, registerAgent, send, untilPaused } from '../support/agents.js';
import { newUser } from '../support/client.js';
import { deepseekThinking } from '../support/deepseek-thinking.js';
import { startFakeOpenAI, type FakeOpenAI, type Script } from '../support/fake-openai.js';
import { startTestServer, type TestServer } from '../support/server.js';

let fake: FakeOpenAI;
let server: TestServer;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  server = await startTestServer({
    LLM_PROVIDERS: JSON.stringify({ deepseek: { baseUrl: fake.url, apiKey: 'test-key' } }),
    LLM_DEFAULT_MODEL: 'deepseek:deepseek-v4-pro',
    LLM_RETRY_BASE_MS: '1',
  });
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});
afterEach(() => {
  expect(fake.pending, 'every scripted model reply was used').toBe(0);
  fake.reset();
});

const thinkingCall = (reasoning: string, name: string, args: Record<string, unknown>): Script => ({
  reasoning,
  reasoningField: 'reasoning_content',
  toolCalls: [{ name, arguments: args }],
});

type Wire = { role: string; reasoning_content?: string }[];
const reasoningSent = (i: number) =>
  (fake.chatRequests[i]!.body.messages as Wire).filter((m) => m.role === 'assistant').map((m) => m.reasoning_content ?? null);

describe('DeepSeek thinking mode', () => {
  it('gets the tool loop’s reasoning back on each call, and no earlier turn’s', async () => {
    const user = newUser(server.url);
    await registerAgent(user, 'name: noter\ndescription: You note things.\ntools:\n  - name: register_metadata\n');
    fake.enqueue(
      thinkingCall('Note it first.', 'register_metadata', { confidence: 0.5 }),
      deepseekThinking(thinkingCall('Once more, surer.', 'register_metadata', { confidence: 0.9 })),
      deepseekThinking({ text: 'Noted twice.' }),
    );
    const first = await chat(server.url, user, { content: 'Note it', agent: 'noter' });
    expect(first.events.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'Noted twice.' });
    expect(reasoningSent(1)).toEqual(['Note it first.']);
    expect(reasoningSent(2)).toEqual(['Note it first.', 'Once more, surer.']);

    // The next turn of the session: the earlier turn's reasoning stays behind.
    fake.enqueue(deepseekThinking(thinkingCall('Again.', 'register_metadata', { confidence: 1 })), deepseekThinking({ text: 'Done.' }));
    const second = await chat(server.url, user, { content: 'And again', agent: 'noter', sessionId: first.sent.session.id });
    expect(second.events.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'Done.' });
    expect(reasoningSent(3).filter(Boolean)).toEqual([]);
    expect(reasoningSent(4).filter(Boolean)).toEqual(['Again.']);
  });

  it('keeps a paused call’s reasoning in the checkpoint, so it goes back after the approval', async () => {
    const user = newUser(server.url);
    await registerAgent(user, GATED_AGENT);
    fake.enqueue(thinkingCall('Deploying needs a yes.', 'action', { type: 'deploy' }));
    const sent = await send(user, { content: 'deploy it', agent: 'careful' });
    const before = await untilPaused(server.url, user, sent.turn.id);
    fake.enqueue(deepseekThinking({ text: 'Deployed.' }));
    const approvalId = (before.find((e) => 'approvalId' in e) as { approvalId: string }).approvalId;
    await user.data(DecideApprovalDocument, { id: approvalId, approve: true });
    const after = await followTurn(server.url, user, sent.turn.id, (before.at(-1) as { seq: number }).seq);
    expect(after.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'Deployed.' });
    expect(reasoningSent(1)).toEqual(['Deploying needs a yes.']);
  });
});
