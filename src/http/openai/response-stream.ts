import type { CompletionEnd, HandedBackCall } from '../../events/turn-completion.js';
import { endState, functionCallItem, messageItem, outputText, responseObject, type ResponseBase } from './response-object.js';

/**
 * Writes one response as the Responses API's server-sent events, each with its `type` and a
 * `sequence_number` counting from 0: `response.created` and `response.in_progress`; with the first
 * text the message item and its text part (`response.output_item.added`,
 * `response.content_part.added`), then `response.output_text.delta` for each piece; at the end the
 * item is closed (`response.output_text.done`, `response.content_part.done`,
 * `response.output_item.done`), each call of the client's functions handed back is a `function_call`
 * item of its own (added, its arguments' delta and done, done), and the response ends with `response.completed`,
 * `response.incomplete` (a limit, a pause for approval) or `response.failed`.
 */
export class ResponseEventStream {
  private sequence = 0;
  private text: string | null = null;

  constructor(
    private readonly base: ResponseBase,
    private readonly write: (chunk: string) => void,
  ) {}

  start(): void {
    const response = responseObject(this.base, { status: 'in_progress', text: null });
    this.send('response.created', { response });
    this.send('response.in_progress', { response });
  }

  delta(delta: string): void {
    if (!delta) return;
    this.open();
    this.text += delta;
    this.send('response.output_text.delta', { ...this.at(), content_index: 0, delta, logprobs: [] });
  }

  end(end: CompletionEnd): void {
    const state = endState(this.base, end, this.text ?? '');
    // A completed answer always has its message, empty or not; any other end closes what was said.
    if (state.status === 'completed' && !state.calls) this.open();
    if (this.text !== null) this.close(state.status === 'completed' ? 'completed' : 'incomplete');
    const first = this.text === null ? 0 : 1;
    (state.calls ?? []).forEach((call, i) => this.handBack(call, first + i));
    const type = state.status === 'completed' ? 'response.completed' : state.status === 'failed' ? 'response.failed' : 'response.incomplete';
    this.send(type, { response: responseObject(this.base, { ...state, text: this.text }) });
  }

  /** One function call handed back, as an item of its own whose arguments come in one delta. */
  private handBack(call: HandedBackCall, output_index: number) {
    const at = { item_id: functionCallItem(call, 'completed').id, output_index };
    this.send('response.output_item.added', { output_index, item: functionCallItem(call, 'in_progress', '') });
    this.send('response.function_call_arguments.delta', { ...at, delta: call.arguments });
    this.send('response.function_call_arguments.done', { ...at, name: call.name, arguments: call.arguments });
    this.send('response.output_item.done', { output_index, item: functionCallItem(call, 'completed') });
  }

  private open() {
    if (this.text !== null) return;
    this.text = '';
    this.send('response.output_item.added', { output_index: 0, item: messageItem(this.base.turnId, '', 'in_progress') });
    this.send('response.content_part.added', { ...this.at(), content_index: 0, part: outputText('') });
  }

  private close(status: 'completed' | 'incomplete') {
    const text = this.text ?? '';
    this.send('response.output_text.done', { ...this.at(), content_index: 0, text, logprobs: [] });
    this.send('response.content_part.done', { ...this.at(), content_index: 0, part: outputText(text) });
    this.send('response.output_item.done', { output_index: 0, item: messageItem(this.base.turnId, text, status) });
  }

  private at() {
    return { item_id: `msg_${this.base.turnId}`, output_index: 0 };
  }

  private send(type: string, data: Record<string, unknown>) {
    this.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.sequence++, ...data })}\n\n`);
  }
}
