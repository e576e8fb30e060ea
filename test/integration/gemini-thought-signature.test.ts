/**
 * Gemini 3 refuses a request whose earlier tool call comes back without the thought signature it
 * was sent with. The signature rides on the tool call through the turn's checkpoint, so it is
 * still there when a human approves the call and the turn resumes.
 */
import { decodeGlobalID } from '@pothos/plugin-relay';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { newUser } from '../support/client.js';
import { followTurn, GATED_AGENT, registerAgent, send, shape, untilPaused, type Event } from '../support/agents.js';
import { useAgentServer } from '../support/agents.js';
import type { Script } from '../support/fake-openai.js';
import { DecideApprovalDocument } from '../generated/graphql.js';

const env = useAgentServer();

const SIGNATURE = { google: { thought_signature: 'EjQKMgEMOdbHJChLX75QUCJjyYlm' } };

/** Gemini's stream: the whole call in one index-less delta, its signature beside it, finish_reason "stop". */
const geminiToolCall: Script = {
  stream: [
    {
      id: 'gem-1',
      object: 'chat.completion.chunk',
      created: 1_760_000_000,
      model: 'gemini-3-pro-preview',
      choices: [
        {
          index: 0,
          delta: {
            role: 'assistant',
            tool_calls: [{ extra_content: SIGNATURE, function: { arguments: '{"type":"deploy"}', name: 'action' }, id: 'function-call-1', type: 'function' }],
          },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 50, completion_tokens: 8, total_tokens: 58 },
    },
    'data: [DONE]\n\n',
  ],
};

/** Gemini 3's answer to the next request: its 400 unless the call's signature came back. */
const geminiNext: Script = (req) => {
  const call = req.body.messages.find((m: { role: string; tool_calls?: unknown[] }) => m.role === 'assistant' && m.tool_calls)?.tool_calls[0];
  if (JSON.stringify(call?.extra_content) !== JSON.stringify(SIGNATURE)) {
    const message = 'Function call is missing a thought_signature in functionCall parts. Additional data, function call `default_api:action` , position 2.';
    return { status: 400, body: [{ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }] };
  }
  return { text: 'Deployed.' };
};

describe('Gemini thought signatures', () => {
  it('go back with the tool call after a durable approval', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue(geminiToolCall);
    const sent = await send(user, { content: 'deploy it', agent: 'careful' });
    const before = await untilPaused(env.server.url, user, sent.turn.id);
    expect(shape(before)).toEqual(['tool_call', 'approval_needed']);

    // The pause is in the database, signature and all.
    const stored = await env.server.db.prisma.turn.findUniqueOrThrow({ where: { id: decodeGlobalID(sent.turn.id).id } });
    const messages = (stored.checkpoint as { messages: { role: string; toolCalls?: unknown[] }[] }).messages;
    expect(messages.find((m) => m.toolCalls)?.toolCalls).toEqual([
      { id: 'function-call-1', name: 'action', arguments: '{"type":"deploy"}', extraContent: SIGNATURE },
    ]);

    env.fake.enqueue(geminiNext);
    const approvalId = (before[1] as { approvalId: string }).approvalId;
    await user.data(DecideApprovalDocument, { id: approvalId, approve: true });
    const after = await followTurn(env.server.url, user, sent.turn.id, (before.at(-1) as { seq: number }).seq);
    expect(after.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'Deployed.' });
    expect(env.fake.chatRequests[1]!.body.messages.find((m: { role: string }) => m.role === 'assistant').tool_calls).toEqual([
      { id: 'function-call-1', type: 'function', function: { name: 'action', arguments: '{"type":"deploy"}' }, extra_content: SIGNATURE },
    ]);
  });

  it('a request without it is refused with Gemini’s own message', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    // A signature-less call, as a client that dropped it would send back.
    env.fake.enqueue({ toolCalls: [{ id: 'plain-1', name: 'register_metadata', arguments: { confidence: 0.9 } }] }, geminiNext);
    const sent = await send(user, { content: 'note it', agent: 'careful' });
    const events: Event[] = await followTurn(env.server.url, user, sent.turn.id);
    expect(events.at(-1)).toMatchObject({ status: 'ERROR' });
    expect(JSON.stringify(events.find((e) => e.__typename === 'ErrorEvent'))).toContain('Function call is missing a thought_signature');
  });

  it('go back with a tool call in a stateless /v1/chat/completions client’s own history', async () => {
    const user = newUser(env.server.url);
    const client = new OpenAI({ baseURL: env.server.url.replace(/\/graphql$/, '/v1'), apiKey: 'unused', maxRetries: 0, defaultHeaders: user.headers });
    env.fake.enqueue(geminiNext);
    const call = { id: 'function-call-1', type: 'function' as const, function: { name: 'action', arguments: '{"type":"deploy"}' } };
    const completion = await client.chat.completions.create({
      model: 'general',
      messages: [
        { role: 'user', content: 'deploy it' },
        // The assistant message as the client got it from Gemini, signature included.
        { role: 'assistant', content: null, tool_calls: [{ ...call, extra_content: SIGNATURE } as OpenAI.Chat.Completions.ChatCompletionMessageToolCall] },
        { role: 'tool', tool_call_id: 'function-call-1', content: 'deployed' },
        { role: 'user', content: 'Is it live?' },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe('Deployed.');
    const assistant = env.fake.chatRequests[0]!.body.messages.find((m: { role: string }) => m.role === 'assistant');
    expect(assistant.tool_calls).toEqual([{ ...call, extra_content: SIGNATURE }]);
  });

  it('a stateless client’s history without it is passed on as sent, and Gemini’s refusal is the answer', async () => {
    const user = newUser(env.server.url);
    const client = new OpenAI({ baseURL: env.server.url.replace(/\/graphql$/, '/v1'), apiKey: 'unused', maxRetries: 0, defaultHeaders: user.headers });
    env.fake.enqueue(geminiNext);
    const call = { id: 'function-call-1', type: 'function' as const, function: { name: 'action', arguments: '{"type":"deploy"}' } };
    const refused = await client.chat.completions
      .create({
        model: 'general',
        messages: [
          { role: 'user', content: 'deploy it' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: 'function-call-1', content: 'deployed' },
          { role: 'user', content: 'Is it live?' },
        ],
      })
      .then(
        () => null,
        (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
      );
    expect(refused?.status).toBe(400);
    expect(refused?.message).toContain('Function call is missing a thought_signature');
    expect(env.fake.chatRequests[0]!.body.messages.find((m: { role: string }) => m.role === 'assistant').tool_calls).toEqual([call]);
  });
});
