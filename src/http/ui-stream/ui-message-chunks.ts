import type { AgentEvent, Source, UsageTotals } from '../../events/agent-event.js';
import type { TerminalStatus } from '../../events/turn-status.js';
import { encodeGlobalID } from '../global-ids.js';

/** One chunk of the AI SDK's UI message stream (the `UIMessageChunk` its `useChat` reads), as sent. */
export type UIMessageChunk = { type: string; [field: string]: unknown };

/** What `finish` reports in its message metadata: where the turn lives, how it ended, what it cost. */
interface FinishMetadata {
  sessionId: string;
  turnId: string;
  status: string;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number } | null;
}

/** The AI SDK's finish reason for each way a turn ends; null for a failure (an error chunk precedes the finish). */
const FINISH_REASONS = {
  COMPLETED: 'stop',
  TOOL_CALLS: 'tool-calls',
  MAX_ITERATIONS: 'length',
  CANCELLED: 'stop',
  ERROR: null,
  INTERRUPTED: null,
} as const satisfies Record<TerminalStatus, string | null>;

/**
 * Turns a turn's events into UI message chunks, one assistant message per turn: the top-level
 * agent's text and reasoning parts, its tool calls with their input and output, sources, a step per
 * model call, and each child agent as one `data-agent` part (id: the child turn) updated as it
 * speaks. Text the agent's final answer holds but never streamed (a repeated child answer) comes as
 * a last delta, as on /v1. `done` is set once the turn ended or paused for an approval.
 */
export class UIMessageChunker {
  done = false;
  private open: { kind: 'text' | 'reasoning'; id: string } | null = null;
  private stepOpen = false;
  private afterTools = false;
  private streamed = '';
  private error: string | null = null;
  private readonly children = new Map<string, { agent: string; path: string[]; text: string; status: string }>();

  constructor(
    private readonly ids: { sessionId: string; turnId: string },
    private readonly metadata = { sessionId: encodeGlobalID('Session', ids.sessionId), turnId: encodeGlobalID('Turn', ids.turnId) },
  ) {}

  start(): UIMessageChunk[] {
    return [{ type: 'start', messageId: `msg-${this.ids.turnId}`, messageMetadata: this.metadata }];
  }

  chunksOf(event: AgentEvent): UIMessageChunk[] {
    switch (event.type) {
      case 'content':
        this.streamed += event.delta;
        return [...this.step(), ...this.part('text', event.seq), { type: 'text-delta', id: this.open!.id, delta: event.delta }];
      case 'thought':
        return [...this.step(), ...this.part('reasoning', event.seq), { type: 'reasoning-delta', id: this.open!.id, delta: event.text }];
      case 'tool_call':
        this.streamed = '';
        return [
          ...this.step(),
          ...this.close(),
          { type: 'tool-input-available', toolCallId: event.toolCallId, toolName: event.name, input: event.arguments ?? {} },
        ];
      case 'tool_result':
        this.afterTools = true;
        return event.isError
          ? [{ type: 'tool-output-error', toolCallId: event.toolCallId, errorText: errorText(event.result) }]
          : [{ type: 'tool-output-available', toolCallId: event.toolCallId, output: event.result }];
      case 'sources':
        return event.sources.map(sourceChunk);
      case 'child':
        return this.child(event);
      case 'approval_needed':
        this.done = true;
        return [...this.approval(event), ...this.finish('other', 'AWAITING_APPROVAL', null)];
      case 'error':
        this.error = event.message;
        return [];
      case 'final': {
        this.done = true;
        const rest = event.content?.startsWith(this.streamed) ? event.content.slice(this.streamed.length) : '';
        const tail = rest ? [...this.step(), ...this.part('text', event.seq), { type: 'text-delta', id: this.open!.id, delta: rest }] : [];
        const reason = FINISH_REASONS[event.status];
        const error = reason === null ? [{ type: 'error', errorText: this.error ?? `The turn ended with status ${event.status}` }] : [];
        return [...tail, ...error, ...event.sources.map(sourceChunk), ...this.finish(reason ?? 'error', event.status, event.usage)];
      }
      default:
        return [];
    }
  }

  /** A new step for each model call: the first, and each one after tool results. */
  private step(): UIMessageChunk[] {
    if (this.stepOpen && !this.afterTools) return [];
    const chunks = this.stepOpen ? [...this.close(), { type: 'finish-step' }] : [];
    this.stepOpen = true;
    this.afterTools = false;
    return [...chunks, { type: 'start-step' }];
  }

  private part(kind: 'text' | 'reasoning', seq: number): UIMessageChunk[] {
    if (this.open?.kind === kind) return [];
    const closed = this.close();
    this.open = { kind, id: `${kind}-${seq}` };
    return [...closed, { type: `${kind}-start`, id: this.open.id }];
  }

  private close(): UIMessageChunk[] {
    if (!this.open) return [];
    const chunk = { type: `${this.open.kind}-end`, id: this.open.id };
    this.open = null;
    return [chunk];
  }

  private child(event: Extract<AgentEvent, { type: 'child' }>): UIMessageChunk[] {
    let wrapper = event;
    while (wrapper.event.type === 'child') wrapper = wrapper.event;
    const inner = wrapper.event;
    if (inner.type === 'approval_needed') {
      this.done = true;
      return [...this.approval(inner), ...this.finish('other', 'AWAITING_APPROVAL', null)];
    }
    const state = this.children.get(wrapper.childTurnId) ?? { agent: wrapper.childAgent, path: wrapper.path, text: '', status: 'RUNNING' };
    this.children.set(wrapper.childTurnId, state);
    if (inner.type === 'content') state.text += inner.delta;
    else if (inner.type === 'final') state.status = inner.status;
    else if (inner.type !== 'tool_call' && inner.type !== 'tool_result') return [];
    return [{ type: 'data-agent', id: encodeGlobalID('Turn', wrapper.childTurnId), data: { ...state } }];
  }

  private approval(event: Extract<AgentEvent, { type: 'approval_needed' }>): UIMessageChunk[] {
    const data = {
      approvalId: encodeGlobalID('Approval', event.approvalId),
      toolCallId: event.toolCallId,
      name: event.name,
      arguments: event.arguments,
      agentPath: event.agentPath,
    };
    return [...this.close(), { type: 'data-approval', id: data.approvalId, data }];
  }

  private finish(reason: string, status: string, usage: UsageTotals | null): UIMessageChunk[] {
    const metadata: FinishMetadata = {
      ...this.metadata,
      status,
      usage: usage && { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.inputTokens + usage.outputTokens },
    };
    const step = this.stepOpen ? [{ type: 'finish-step' }] : [];
    return [...this.close(), ...step, { type: 'finish', finishReason: reason, messageMetadata: metadata }];
  }
}

function sourceChunk(source: Source): UIMessageChunk {
  if (source.uri) return { type: 'source-url', sourceId: source.key, url: source.uri, ...(source.title ? { title: source.title } : {}) };
  return { type: 'source-document', sourceId: source.key, mediaType: 'text/plain', title: source.title ?? source.key };
}

function errorText(result: unknown): string {
  return typeof result === 'string' ? result : JSON.stringify(result);
}
