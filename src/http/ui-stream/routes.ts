import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { AgentContext } from '../../auth/agent-context.js';
import type { Identify } from '../../auth/identify.js';
import type { Turn } from '../../db/generated/client.js';
import { ForbiddenError } from '../../errors.js';
import { turnEventStream, type TurnEventsDeps } from '../../events/turn-events.js';
import type { Logger } from '../../logger.js';
import { chatSession, type SessionDeps } from '../../sessions/sessions.js';
import type { SendMessageInput } from '../../turns/send-input.js';
import { parseInput } from '../../validation.js';
import { rowIdOrUuid } from '../global-ids.js';
import { readJsonBody } from '../json-body.js';
import { sendOpenAIError } from '../openai/errors.js';
import type { OriginPolicy } from '../origin-policy.js';
import { UIMessageChunker, type UIMessageChunk } from './ui-message-chunks.js';

export interface UIStreamRoutesDeps extends TurnEventsDeps, SessionDeps {
  identify: Identify;
  origins: OriginPolicy;
  turns: {
    sendMessage(ctx: AgentContext, input: SendMessageInput): Promise<{ turn: Pick<Turn, 'id' | 'sessionId' | 'rootId' | 'status' | 'lastSeq'> }>;
  };
  logger: Logger;
  maxRequestBytes: number;
}

const CHAT = /^\/chat\/([^/]+)$/;

/** The AI SDK's UI message stream headers (its `UI_MESSAGE_STREAM_HEADERS`). */
const STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

// useChat's body: the chat's messages (UIMessage: id, role, parts); only the last user message's text is new.
const chatBody = z.object({
  id: z.string().optional(),
  messages: z
    .array(z.object({ role: z.enum(['system', 'user', 'assistant']), parts: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })) }))
    .min(1, 'must hold the new user message'),
});

/**
 * `POST /chat/{chat_id}` (p8's route): the Vercel AI SDK's `useChat` talks to an agent (header
 * `x-agent-schema-name`, else the session's) with nothing in between. The last user message of
 * the body starts a turn in the session `chat_id` names, answered as a UI message stream.
 */
export function createUIStreamRoutes(deps: UIStreamRoutesDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const chatId = CHAT.exec((req.url ?? '/').split('?')[0]!)?.[1];
    if (chatId === undefined || req.method !== 'POST') return false;
    void (async () => {
      try {
        if (!deps.origins.allows(header(req, 'origin'), header(req, 'host'))) throw new ForbiddenError('Origin not allowed (CORS_ORIGINS)');
        const ctx = await deps.identify((name) => header(req, name));
        await answer(deps, ctx, req, res, decodeURIComponent(chatId));
      } catch (error) {
        if (!res.headersSent) return sendOpenAIError(res, error, deps.logger);
        deps.logger.error({ err: error }, 'UI message stream failed');
        res.end();
      }
    })();
    return true;
  };
}

async function answer(deps: UIStreamRoutesDeps, ctx: AgentContext, req: IncomingMessage, res: ServerResponse, chatId: string) {
  const body = parseInput(chatBody, await readJsonBody(req, res, deps.maxRequestBytes), []);
  const last = body.messages.at(-1)!;
  const content = last.role === 'user' ? last.parts.flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join('\n') : '';
  const session = await chatSession(deps, ctx, chatId, rowIdOrUuid(chatId, 'Session'));
  const { turn } = await deps.turns.sendMessage(ctx, {
    sessionId: session.id,
    content,
    agent: header(req, 'x-agent-schema-name'),
    metadata: { via: 'ai-sdk-ui', chat_id: chatId },
  });
  const chunker = new UIMessageChunker({ sessionId: session.id, turnId: turn.id });
  const events = turnEventStream(deps, turn);
  // The turn goes on when the client leaves (it is in the session); only the stream stops.
  res.once('close', () => void events.return(undefined));
  res.writeHead(200, STREAM_HEADERS);
  const send = (chunks: UIMessageChunk[]) => {
    for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  };
  send(chunker.start());
  for await (const event of events) {
    send(chunker.chunksOf(event));
    if (chunker.done) break;
  }
  res.end('data: [DONE]\n\n');
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
