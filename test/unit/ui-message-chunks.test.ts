import { readUIMessageStream, type UIMessageChunk as SdkChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventBody } from '../../src/events/agent-event.js';
import { UIMessageChunker } from '../../src/http/ui-stream/ui-message-chunks.js';

const envelope = (seq: number) => ({ seq, turnId: 't1', at: '2026-01-01T00:00:00Z', agent: 'a', depth: 0 });
const events = (...bodies: AgentEventBody[]): AgentEvent[] => bodies.map((body, i) => ({ ...envelope(i + 1), ...body }) as AgentEvent);

async function messageOf(list: AgentEvent[]) {
  const chunker = new UIMessageChunker({ sessionId: 's1', turnId: 't1' });
  const chunks = [...chunker.start(), ...list.flatMap((e) => chunker.chunksOf(e))] as SdkChunk[];
  const stream = new ReadableStream<SdkChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last;
  for await (const message of readUIMessageStream({ stream, terminateOnError: true })) last = message;
  return { message: last!, types: chunks.map((c) => c.type), done: chunker.done };
}

const usage = { inputTokens: 1, outputTokens: 1, requests: 1 };

describe('UI message chunks of a turn', () => {
  it('gives sources as source-url or source-document parts and ends at the final event', async () => {
    const { message, done } = await messageOf(
      events(
        { type: 'content', delta: 'See.' },
        {
          type: 'sources',
          sources: [
            { key: 'doc-1', uri: 'https://example.com/a', title: 'A' },
            { key: 'note-2', title: 'Note' },
          ],
        },
        { type: 'final', status: 'COMPLETED', content: 'See.', sources: [], usage },
      ),
    );
    expect(done).toBe(true);
    expect(message.parts.slice(2)).toEqual([
      { type: 'source-url', sourceId: 'doc-1', url: 'https://example.com/a', title: 'A' },
      { type: 'source-document', sourceId: 'note-2', mediaType: 'text/plain', title: 'Note' },
    ]);
  });

  it('sends the part of the final answer that was never streamed, and a failure as an error chunk', async () => {
    const answered = await messageOf(events({ type: 'final', status: 'COMPLETED', content: 'Whole answer.', sources: [], usage }));
    expect(answered.message.parts.at(-1)).toMatchObject({ type: 'text', text: 'Whole answer.' });

    // useChat's reader raises the error chunk's text (here, told to stop at it).
    const failed = events({ type: 'error', code: 'LLM_ERROR', message: 'model down' }, { type: 'final', status: 'ERROR', content: null, sources: [], usage });
    await expect(messageOf(failed)).rejects.toThrow('model down');
  });

  it('stops at a pause for approval with the approval as a data part', async () => {
    const { message, done, types } = await messageOf(
      events({ type: 'approval_needed', approvalId: 'ap1', toolCallId: 'c1', name: 'action', arguments: {}, agentPath: ['a'] }),
    );
    expect(done).toBe(true);
    expect(types.at(-1)).toBe('finish');
    expect(message.parts).toEqual([{ type: 'data-approval', id: expect.any(String), data: expect.objectContaining({ name: 'action', toolCallId: 'c1' }) }]);
    expect(message.metadata).toMatchObject({ status: 'AWAITING_APPROVAL' });
  });
});
