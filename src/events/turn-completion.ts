import type { Turn } from '../db/generated/client.js';
import type { AgentEvent, UsageTotals } from './agent-event.js';
import type { TerminalStatus } from './turn-status.js';
import { turnEventStream, type TurnEventsDeps } from './turn-events.js';

interface PendingApproval {
  id: string;
  toolName: string;
  arguments: unknown;
  agentPath: string[];
}

/** A call of one of the caller's own tools, handed back for the caller to run (arguments as JSON text). */
export interface HandedBackCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * How a turn's answer ends, as far as a chat completion is concerned: answered in full, cut short by
 * a limit or by a cancel (what was said so far is the answer), paused, handing calls of the caller's
 * own tools back to it, or failed (an error, or the server running it stopped).
 */
export type CompletionEnd =
  | { kind: 'answered'; status: Extract<TerminalStatus, 'COMPLETED' | 'MAX_ITERATIONS' | 'CANCELLED'>; content: string; usage: UsageTotals }
  | { kind: 'awaiting_approval'; approvals: PendingApproval[]; usage: UsageTotals | null }
  | { kind: 'tool_calls'; calls: HandedBackCall[]; usage: UsageTotals }
  | { kind: 'failed'; status: TerminalStatus; code: string; message: string; usage: UsageTotals };

export type CompletionPart = { type: 'delta'; text: string } | { type: 'end'; end: CompletionEnd };

/**
 * The parts of a turn a chat completion shows: the top-level agent's content deltas, then how the
 * turn ended. Tool calls, thoughts and child agents' events are not assistant text and stay out.
 * A child's answer that the parent repeats is not streamed twice by the engine; whatever of the
 * final answer was not streamed comes as a last delta, so the client always gets the whole answer.
 * A pause for approval (of this agent or of a child) ends the completion with the pending approvals;
 * a TOOL_CALLS end with the calls handed back.
 */
export async function* turnCompletion(
  deps: TurnEventsDeps,
  turn: Pick<Turn, 'id' | 'sessionId' | 'rootId' | 'status' | 'lastSeq'>,
): AsyncGenerator<CompletionPart> {
  const events = turnEventStream(deps, turn);
  // Text streamed since the agent's last tool calls: the final answer is that model call's text.
  let streamed = '';
  // What the agent said with its last tool calls: the answer of a turn stopped at a limit.
  let said = '';
  let error: { code: string; message: string } | null = null;
  // What one model call said before its tool calls is a paragraph of its own: the next call's text
  // starts after a blank line instead of glued to it.
  let separate = false;
  // The agent's calls no result answered yet: at a TOOL_CALLS end, those handed back to the caller.
  const open = new Map<string, HandedBackCall>();
  try {
    for await (const event of events) {
      if (event.type === 'content') {
        if (separate) yield { type: 'delta', text: PARAGRAPH_BREAK };
        separate = false;
        streamed += event.delta;
        yield { type: 'delta', text: event.delta };
      } else if (event.type === 'tool_call') {
        const args = event.arguments;
        open.set(event.toolCallId, { id: event.toolCallId, name: event.name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
        if (streamed) said = streamed;
        separate ||= streamed !== '';
        streamed = '';
      } else if (event.type === 'tool_result') {
        open.delete(event.toolCallId);
      } else if (event.type === 'error') {
        error = { code: event.code, message: event.message };
      } else if (innermost(event).type === 'approval_needed') {
        // The approvals are stored with their events, so every one announced so far is readable now.
        const approvals = await deps.prisma.approval.findMany({
          where: { turn: { rootId: turn.rootId }, status: 'PENDING' },
          orderBy: { createdAt: 'asc' },
          select: { id: true, toolName: true, arguments: true, agentPath: true },
        });
        yield { type: 'end', end: { kind: 'awaiting_approval', approvals, usage: null } };
        return;
      } else if (event.type === 'final') {
        if (event.status === 'TOOL_CALLS') {
          yield { type: 'end', end: { kind: 'tool_calls', calls: [...open.values()], usage: event.usage } };
        } else if (event.status === 'COMPLETED' || event.status === 'MAX_ITERATIONS' || event.status === 'CANCELLED') {
          const content = event.content ?? streamed;
          const shown = streamed || (event.status === 'MAX_ITERATIONS' ? said : '');
          if (content.startsWith(shown) && content.length > shown.length) {
            if (separate && !streamed) yield { type: 'delta', text: PARAGRAPH_BREAK };
            yield { type: 'delta', text: content.slice(shown.length) };
          }
          yield { type: 'end', end: { kind: 'answered', status: event.status, content, usage: event.usage } };
        } else {
          const { code, message } = error ?? { code: event.status, message: `The turn ended with status ${event.status}` };
          yield { type: 'end', end: { kind: 'failed', status: event.status, code, message, usage: event.usage } };
        }
        return;
      }
    }
  } finally {
    await events.return(undefined);
  }
}

const PARAGRAPH_BREAK = '\n\n';

function innermost(event: AgentEvent): AgentEvent {
  return event.type === 'child' ? innermost(event.event) : event;
}
