import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { registerAgent, useAgentServer } from '../support/agents.js';
import { newUser, type Caller } from '../support/client.js';

const env = useAgentServer();

type Metadata = { sessionId: string; turnId: string; status?: string; usage?: { inputTokens: number; outputTokens: number; totalTokens: number } | null };

/** What `useChat` does for one message: its default transport posts the chat, and the stream is read into the assistant message. */
async function say(user: Caller, chatId: string, history: UIMessage<Metadata>[], text: string, agent?: string) {
  const transport = new DefaultChatTransport<UIMessage<Metadata>>({
    api: new URL(`/chat/${chatId}`, env.server.url).href,
    headers: { ...user.headers, ...(agent ? { 'x-agent-schema-name': agent } : {}) },
  });
  const messages = [...history, { id: `u${history.length}`, role: 'user' as const, parts: [{ type: 'text' as const, text }] }];
  const stream = await transport.sendMessages({ trigger: 'submit-message', chatId, messageId: undefined, messages, abortSignal: undefined });
  let reply: UIMessage<Metadata> | undefined;
  for await (const message of readUIMessageStream<UIMessage<Metadata>>({ stream, terminateOnError: true })) reply = message;
  return { messages: [...messages, reply!], reply: reply! };
}

describe('POST /chat/{chat_id}: the AI SDK UI message stream', () => {
  it('answers useChat with reasoning, tool and text parts, and usage at the finish', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: doer\ndescription: Do.\ntools:\n  - name: register_metadata\n');
    env.fake.enqueue(
      {
        reasoning: 'Let me note it.',
        toolCalls: [{ id: 'call_1', name: 'register_metadata', arguments: { confidence: 0.9 } }],
        usage: { prompt_tokens: 10, completion_tokens: 2 },
      },
      { text: ['All ', 'noted.'], usage: { prompt_tokens: 20, completion_tokens: 3 } },
    );
    const { reply } = await say(user, 'chat-abc', [], 'Note this', 'doer');

    expect(reply.role).toBe('assistant');
    expect(reply.parts.map((p) => p.type)).toEqual(['step-start', 'reasoning', 'tool-register_metadata', 'step-start', 'text']);
    expect(reply.parts[1]).toMatchObject({ type: 'reasoning', text: 'Let me note it.', state: 'done' });
    expect(reply.parts[2]).toMatchObject({ toolCallId: 'call_1', state: 'output-available', input: { confidence: 0.9 } });
    expect(reply.parts[4]).toMatchObject({ type: 'text', text: 'All noted.', state: 'done' });
    expect(reply.metadata).toMatchObject({ status: 'COMPLETED', usage: { inputTokens: 30, outputTokens: 5, totalTokens: 35 } });
  });

  it('continues the session the chat id names: the model reads the earlier exchange', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Hello Ada.' }, { text: 'You are Ada.' });
    const first = await say(user, 'chat-xyz', [], 'I am Ada');
    const second = await say(user, 'chat-xyz', first.messages, 'Who am I?');

    expect(second.reply.parts.at(-1)).toMatchObject({ type: 'text', text: 'You are Ada.' });
    expect(second.reply.metadata?.sessionId).toBe(first.reply.metadata?.sessionId);
    const conversation = env.fake.chatRequests[1]!.body.messages.filter((m: { role: string }) => m.role !== 'system');
    expect(conversation.map((m: { content: string }) => m.content)).toEqual(['I am Ada', 'Hello Ada.', 'Who am I?']);
    // Another user's chat of the same id is theirs alone.
    env.fake.enqueue({ text: 'Hi stranger.' });
    const other = await say(newUser(env.server.url), 'chat-xyz', [], 'Hi');
    expect(other.reply.metadata?.sessionId).not.toBe(first.reply.metadata?.sessionId);
  });

  it('shows a child agent as a data part with its answer', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: boss\ndescription: Boss.\ntools:\n  - name: ask_agent\n');
    await registerAgent(user, 'name: helper\ndescription: Helper.\n');
    env.fake.enqueue(
      { toolCalls: [{ id: 'call_ask', name: 'ask_agent', arguments: { agent_name: 'helper', input_text: 'help' } }] },
      { text: 'Helped.' },
      { text: 'The helper helped.' },
    );
    const { reply } = await say(user, 'chat-kids', [], 'Delegate', 'boss');

    expect(reply.parts.find((p) => p.type === 'data-agent')).toMatchObject({
      data: { agent: 'helper', path: ['boss', 'helper'], text: 'Helped.', status: 'COMPLETED' },
    });
    expect(reply.parts.at(-1)).toMatchObject({ type: 'text', text: 'The helper helped.' });
  });

  it('refuses a body that is not useChat’s with a 400, starting nothing', async () => {
    const user = newUser(env.server.url);
    const res = await fetch(new URL('/chat/c1', env.server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...user.headers },
      body: '{"messages":[]}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
  });
});
