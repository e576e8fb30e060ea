import type { UsageTotals } from '../../events/agent-event.js';
import type { CompletionEnd, HandedBackCall } from '../../events/turn-completion.js';
import type { ResponsesRequest } from './responses-request.js';
import { turnExtension } from './turn-extension.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A response's id is its turn's: `resp_<turn uuid>`. */
const responseIdOf = (turnId: string) => `resp_${turnId}`;

/** The turn a response id names, or null for an id that names none. */
export function turnIdOf(responseId: string): string | null {
  const id = responseId.startsWith('resp_') ? responseId.slice('resp_'.length) : '';
  return UUID.test(id) ? id : null;
}

/** What every state of one response shares. */
export interface ResponseBase {
  turnId: string;
  sessionId: string;
  createdAt: number;
  model: string;
  previousResponseId: string | null;
  store: boolean;
  echo: ResponsesRequest['echo'] | null;
}

type Status = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** A response's state: its status, the answer so far, and why it stopped. */
export interface ResponseState {
  status: Status;
  /** The assistant's text; null before any (no message item yet). */
  text: string | null;
  usage?: UsageTotals | null;
  error?: { code: string; message: string } | null;
  /** Why an incomplete response stopped: `max_output_tokens` for a limit, `approval_required` for a pause. */
  incomplete?: string | null;
  remgraph?: ReturnType<typeof turnExtension>;
  /** Calls of the client's own functions handed back: `function_call` items after the message. */
  calls?: HandedBackCall[];
}

/** The message item holding the answer. */
export function messageItem(turnId: string, text: string, status: 'in_progress' | 'completed' | 'incomplete') {
  return { id: `msg_${turnId}`, type: 'message', status, role: 'assistant', content: text === '' && status === 'in_progress' ? [] : [outputText(text)] };
}

/** A `function_call` item: a call of the client's own function, for it to run and answer with a `function_call_output`. */
export function functionCallItem(call: HandedBackCall, status: 'in_progress' | 'completed', args = call.arguments) {
  return { id: `fc_${call.id}`, type: 'function_call', status, call_id: call.id, name: call.name, arguments: args };
}

export const outputText = (text: string) => ({ type: 'output_text', text, annotations: [], logprobs: [] });

/** The Response object (`object: "response"`) in a state. */
export function responseObject(base: ResponseBase, state: ResponseState) {
  const echo = base.echo;
  const itemStatus = state.status === 'completed' ? 'completed' : state.status === 'in_progress' ? 'in_progress' : 'incomplete';
  return {
    id: responseIdOf(base.turnId),
    object: 'response',
    created_at: base.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incomplete ? { reason: state.incomplete } : null,
    instructions: echo?.instructions ?? null,
    max_output_tokens: echo?.max_output_tokens ?? null,
    model: base.model,
    output: [
      ...(state.text === null ? [] : [messageItem(base.turnId, state.text, itemStatus)]),
      ...(state.calls ?? []).map((call) => functionCallItem(call, 'completed')),
    ],
    parallel_tool_calls: true,
    previous_response_id: base.previousResponseId,
    reasoning: { effort: null, summary: null },
    store: base.store,
    temperature: echo?.temperature ?? null,
    text: { format: echo?.text?.format ?? { type: 'text' } },
    tool_choice: echo?.tool_choice ?? 'auto',
    tools: echo?.tools ?? [],
    top_p: echo?.top_p ?? null,
    truncation: 'disabled',
    usage: state.usage ? wireUsage(state.usage) : null,
    user: null,
    metadata: {},
    ...(state.remgraph ? { remgraph: state.remgraph } : {}),
  };
}

/**
 * How a turn's end shows in a response: an answer is `completed` (a cancelled one too, with what was
 * said so far, as in chat completions, and one handing the client's function calls back, with them),
 * one cut at a limit or paused for approval is `incomplete`.
 */
export function endState(base: ResponseBase, end: CompletionEnd, text: string): ResponseState {
  if (end.kind === 'failed') return { status: 'failed', text: text || null, usage: end.usage, error: { code: end.code, message: end.message } };
  const remgraph = turnExtension(base.sessionId, base.turnId, end);
  if (end.kind === 'awaiting_approval') return { status: 'incomplete', text: text || null, usage: end.usage, incomplete: 'approval_required', remgraph };
  if (end.kind === 'tool_calls') return { status: 'completed', text: text || null, usage: end.usage, calls: end.calls, remgraph };
  const incomplete = end.status === 'MAX_ITERATIONS' ? 'max_output_tokens' : null;
  return { status: incomplete ? 'incomplete' : 'completed', text, usage: end.usage, incomplete, remgraph };
}

function wireUsage(usage: UsageTotals) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
