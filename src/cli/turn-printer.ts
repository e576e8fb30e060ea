import type { TurnEvent } from './client.js';
import { cell } from './output.js';

type ChildEvent = Extract<TurnEvent, { __typename: 'ChildEvent' }>;
/** An event of the turn itself or of a child agent it asked. */
type StepEvent = Exclude<TurnEvent, ChildEvent> | ChildEvent['event'];
type FinalEvent = Extract<StepEvent, { __typename: 'FinalEvent' }>;

export interface PrinterOptions {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Every event on its own line, with seq and timings, instead of the conversation view. */
  debug: boolean;
  color: boolean;
}

/**
 * Shows one turn as it streams: the answer on stdout (so `remgraph chat | …` gets just the
 * answer), everything else on stderr: thoughts, tool calls and results, approvals, child agents
 * (labelled with their path), errors and, with `debug`, every event with its seq and timings,
 * each model call's exact request body (the turn's `ModelRequestEvent`) before the events of that call.
 */
export class TurnPrinter {
  private open: { out: NodeJS.WritableStream; key: string; atLineStart: boolean } | undefined;
  private answered = false;
  private readonly started = performance.now();
  private previous = this.started;

  constructor(private readonly options: PrinterOptions) {}

  print(event: TurnEvent): void {
    if (this.options.debug) this.debugLine(event);
    if (event.__typename === 'ChildEvent') {
      if (!this.options.debug) this.step(event.event, event.path.slice(1).join(' › '));
    } else if (!this.options.debug || event.__typename === 'FinalEvent') {
      this.step(event, undefined);
    }
  }

  private step(event: StepEvent, child: string | undefined): void {
    const tag = child ? `[${child}] ` : '';
    switch (event.__typename) {
      case 'ContentEvent':
        if (child) this.stream(this.options.stderr, `content ${child}`, event.delta, `${child} › `);
        else {
          this.stream(this.options.stdout, 'answer', event.delta);
          this.answered = true;
        }
        return;
      case 'ThoughtEvent':
        return this.stream(this.options.stderr, `thought ${child}`, this.dim(event.text), this.dim(`${tag}thinking: `));
      case 'ToolCallEvent':
        return this.line(`${tag}→ ${event.name} ${cell(event.arguments, 160)}`);
      case 'ToolResultEvent':
        return this.line(`${tag}${event.isError ? '✗' : '←'} ${event.name} ${this.dim(cell(event.result, 160))}`);
      case 'ActionEvent':
        return this.line(this.dim(`${tag}· ${event.actionType} ${cell(event.payload, 160)}`));
      case 'ApprovalNeededEvent':
        return this.line(`${tag}? ${event.name} needs approval: ${cell(event.arguments, 400)}`);
      case 'ApprovalResultEvent':
        return this.line(
          `${tag}${event.approved ? 'approved' : 'rejected'}${event.decidedBy ? ` by ${event.decidedBy}` : ''}${event.reason ? `: ${event.reason}` : ''}`,
        );
      case 'ErrorEvent':
        return this.line(this.red(`${tag}error ${event.code}: ${event.message}`));
      case 'FinalEvent':
        return child ? this.line(this.dim(`${tag}${event.status.toLowerCase()}`)) : this.final(event);
      default:
        return;
    }
  }

  private final(event: FinalEvent): void {
    this.endLine();
    // A turn whose answer was a child's streams nothing itself: its final event carries the answer.
    if (!this.answered && event.content) this.options.stdout.write(`${event.content}\n`);
    // Not a failure: the calls of the caller's own tools (printed as they came) are its to run.
    if (event.status === 'TOOL_CALLS') this.line(this.dim('turn TOOL_CALLS: handed back to the caller'));
    else if (event.status !== 'COMPLETED') this.line(this.red(`turn ${event.status}`));
  }

  private debugLine(event: TurnEvent): void {
    const now = performance.now();
    const since = Math.round(now - this.started);
    const delta = Math.round(now - this.previous);
    this.previous = now;
    const inner = event.__typename === 'ChildEvent' ? event.event : event;
    const { __typename, seq, agent, depth, at, ...fields } = inner as StepEvent & Record<string, unknown>;
    const where = event.__typename === 'ChildEvent' ? ` child ${event.path.join(' › ')} #${seq}` : '';
    if (inner.__typename === 'ModelRequestEvent') {
      this.line(`model request #${inner.iteration} (${inner.model})${where}:\n${JSON.stringify(inner.body, null, 2)}`);
      return;
    }
    this.line(`#${event.seq} +${since}ms Δ${delta}ms ${__typename} ${agent} d${depth}${where} at ${at} ${cell(fields, 300)}`);
  }

  /** Continues a stream of text (the answer, a thought, a child's answer), starting a new one with its header. */
  private stream(out: NodeJS.WritableStream, key: string, text: string, header = ''): void {
    if (this.open?.key !== key) {
      this.endLine();
      if (header) out.write(header);
      this.open = { out, key, atLineStart: !header };
    }
    if (!text) return;
    out.write(text);
    this.open.atLineStart = text.endsWith('\n');
  }

  private line(text: string): void {
    this.endLine();
    this.options.stderr.write(`${text}\n`);
  }

  private endLine(): void {
    if (this.open && !this.open.atLineStart) this.open.out.write('\n');
    this.open = undefined;
  }

  private dim(text: string): string {
    return this.options.color ? `\x1b[2m${text}\x1b[22m` : text;
  }

  private red(text: string): string {
    return this.options.color ? `\x1b[31m${text}\x1b[39m` : text;
  }
}
