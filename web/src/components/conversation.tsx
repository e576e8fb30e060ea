import { useEffect, useRef, useState } from 'preact/hooks';
import { request } from '../api.js';
import { WebDecideApprovalDocument } from '../generated/graphql.js';
import { plural, tokenCount } from '../format.js';
import { renderMarkdown } from '../markdown.js';
import { isTerminal } from '../../../src/events/turn-status.js';
import type { AgentRun, Source, Step, TurnView } from '../turn-view.js';
import type { ForkPoint } from './replay.js';

/** `at`: when the message was sent or the turn started (ISO). */
export type Entry =
  | { kind: 'user'; id: string; content: string; at: string }
  /** An answer copied into a forked session, from a turn of the session it was forked from. */
  | { kind: 'answer'; id: string; content: string; at: string }
  | { kind: 'turn'; view: TurnView; at: string };

interface Props {
  entries: Entry[];
  onChanged(): void;
  onProblem(message: string): void;
  onSource(query: string): void;
  onInspect(turnId: string): void;
  /** A new turn from the user message before this one (regenerate, or retry after an error). */
  onRegenerate(view: TurnView): void;
  /** Puts a message back in the composer to edit and send again. */
  onEdit(content: string): void;
  /** A new session with the conversation up to this point. */
  onFork(at: ForkPoint): void;
  /** Asks the turn's message again with other settings, to compare. */
  onReplay(turnId: string): void;
}

const copy = (text: string) => void navigator.clipboard?.writeText(text).catch(() => {});
const time = (at: string) => new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
/** The turn's answer as written (its text steps). */
const answerOf = (run: AgentRun) => run.steps.flatMap((s) => (s.kind === 'text' ? [s.text] : [])).join('\n\n');

type Handlers = Omit<Props, 'entries' | 'onEdit' | 'onRegenerate' | 'onFork' | 'onReplay'>;
type TurnActions = Pick<Props, 'onRegenerate' | 'onFork' | 'onReplay'>;

/** The finished turn that answered the user message at `index`, if any. */
function answerTo(entries: Entry[], index: number): TurnView | undefined {
  const next = entries[index + 1];
  return next?.kind === 'turn' && next.view.finished ? next.view : undefined;
}

export function Conversation({ entries, onEdit, onRegenerate, onFork, onReplay, ...handlers }: Props) {
  const end = useRef<HTMLDivElement>(null);
  const last = entries.at(-1);
  const size = last?.kind === 'turn' ? last.view.lastSeq : entries.length;
  useEffect(() => end.current?.scrollIntoView({ block: 'end' }), [entries.length, size]);
  if (!entries.length) return <div class="conversation empty">Ask something to start.</div>;
  return (
    <div
      class="conversation"
      onClick={(e) => {
        const button = (e.target as HTMLElement).closest('[data-copy-code]');
        if (button) copy(button.parentElement?.querySelector('pre')?.innerText ?? '');
      }}
    >
      {entries.map((entry, index) =>
        entry.kind === 'user' ? (
          <div class="message user" key={entry.id} data-testid="user-message">
            <div class="md" dangerouslySetInnerHTML={{ __html: renderMarkdown(entry.content) }} />
            <div class="message-actions">
              <time dateTime={entry.at}>{time(entry.at)}</time>
              <button class="link" onClick={() => copy(entry.content)}>
                Copy
              </button>
              <button class="link" onClick={() => onEdit(entry.content)} data-testid="edit">
                Edit
              </button>
              <button class="link" onClick={() => onFork({ messageId: entry.id })} data-testid="fork">
                Fork here
              </button>
              {answerTo(entries, index) && (
                <button class="link" onClick={() => onReplay(answerTo(entries, index)!.run.turnId)} data-testid="replay">
                  Replay with…
                </button>
              )}
            </div>
          </div>
        ) : entry.kind === 'answer' ? (
          <div class="message assistant copied" key={entry.id} data-testid="copied-answer">
            <div class="md" dangerouslySetInnerHTML={{ __html: renderMarkdown(entry.content) }} />
            <div class="message-actions">
              <time dateTime={entry.at}>{time(entry.at)}</time>
              <span class="hint">from the session this was forked from</span>
              <button class="link" onClick={() => copy(entry.content)}>
                Copy
              </button>
              <button class="link" onClick={() => onFork({ messageId: entry.id })} data-testid="fork">
                Fork here
              </button>
            </div>
          </div>
        ) : (
          <TurnBlock key={entry.view.run.turnId} view={entry.view} at={entry.at} actions={{ onRegenerate, onFork, onReplay }} {...handlers} />
        ),
      )}
      <div ref={end} />
    </div>
  );
}

function TurnBlock({ view, at, actions, ...rest }: { view: TurnView; at: string; actions: TurnActions } & Handlers) {
  const waiting = view.pendingApprovals().length > 0;
  const status = waiting && !view.finished ? 'AWAITING_APPROVAL' : view.run.status;
  return (
    <div class="message assistant" data-testid="turn" data-status={status} data-turn-id={view.run.turnId}>
      <div class="turn-head">
        <span class="agent">{view.run.agent}</span>
        <span class={`status ${status.toLowerCase()}`}>{statusLabel(status)}</span>
        {view.run.usage && (
          <span class="usage">
            {tokenCount(view.run.usage)} · {plural(view.run.usage.requests, 'model call')}
          </span>
        )}
        <button class="link inspect" onClick={() => rest.onInspect(view.run.turnId)} data-testid="inspect">
          Inspect
        </button>
      </div>
      <RunSteps run={view.run} {...rest} />
      {view.finished && (
        <div class="message-actions">
          <time dateTime={at}>{time(at)}</time>
          <button class="link" onClick={() => copy(answerOf(view.run))}>
            Copy
          </button>
          <button class="link" onClick={() => actions.onRegenerate(view)} data-testid="regenerate">
            {view.run.status === 'COMPLETED' || view.run.status === 'TOOL_CALLS' ? 'Regenerate' : 'Retry'}
          </button>
          <button class="link" onClick={() => actions.onFork({ turnId: view.run.turnId })} data-testid="fork">
            Fork here
          </button>
          <button class="link" onClick={() => actions.onReplay(view.run.turnId)} data-testid="replay">
            Replay with…
          </button>
        </div>
      )}
    </div>
  );
}

function RunSteps({ run, ...rest }: { run: AgentRun } & Handlers) {
  const running = !isTerminal(run.status);
  return (
    <div class="run">
      {run.steps.map((step, i) => (
        <StepView
          key={i}
          step={step}
          streaming={running && i === run.steps.length - 1}
          gate={step.kind === 'tool' ? gateOf(run, step.toolCallId) : undefined}
          {...rest}
        />
      ))}
      {running && run.steps.length === 0 && <div class="typing">…</div>}
      {run.sources.length > 0 && <Sources sources={run.sources} onSource={rest.onSource} />}
    </div>
  );
}

/** The approval step of a gated tool call, if it has one. */
function gateOf(run: AgentRun, toolCallId: string) {
  return run.steps.find((s): s is Extract<Step, { kind: 'approval' }> => s.kind === 'approval' && s.toolCallId === toolCallId);
}

type StepProps = { step: Step; streaming: boolean; gate?: Extract<Step, { kind: 'approval' }> } & Handlers;

function StepView({ step, streaming, gate, ...rest }: StepProps) {
  switch (step.kind) {
    case 'text':
      return <div class={`md answer${streaming ? ' streaming' : ''}`} data-testid="answer" dangerouslySetInnerHTML={{ __html: renderMarkdown(step.text) }} />;
    case 'thought':
      return (
        <details class="thought">
          <summary>Thinking</summary>
          <div class="md" dangerouslySetInnerHTML={{ __html: renderMarkdown(step.text) }} />
        </details>
      );
    case 'tool':
      return (
        <details class={`tool${step.isError ? ' failed' : ''}`} data-testid="tool-call">
          <summary>
            <code>{step.name}</code> <ToolState step={step} gate={gate} />
          </summary>
          <Json label="arguments" value={step.arguments} />
          {step.result !== undefined && <Json label="result" value={step.result} />}
        </details>
      );
    case 'action':
      return (
        <details class="action">
          <summary>
            action <code>{step.actionType}</code>
          </summary>
          <Json label="payload" value={step.payload} />
        </details>
      );
    case 'approval':
      return <ApprovalCard step={step} {...rest} />;
    case 'child':
      return (
        <details class="child" open data-testid="child-run" data-agent={step.run.agent}>
          <summary>
            <span class="agent">{step.run.path.join(' → ')}</span>
            <span class={`status ${step.run.status.toLowerCase()}`}>{statusLabel(step.run.status)}</span>
          </summary>
          <RunSteps run={step.run} {...rest} />
        </details>
      );
    case 'error':
      return (
        <div class="error" role="alert">
          {step.code}: {step.message}
        </div>
      );
  }
}

function ToolState({ step, gate }: { step: Extract<Step, { kind: 'tool' }>; gate?: Extract<Step, { kind: 'approval' }> }) {
  if (step.result !== undefined) return <span>{step.isError ? 'failed' : 'done'}</span>;
  if (gate && !gate.decision) return <span class="pending">awaiting approval</span>;
  if (gate?.decision && !gate.decision.approved) return <span>rejected</span>;
  return <span class="pending">running…</span>;
}

function ApprovalCard({ step, onChanged, onProblem }: { step: Extract<Step, { kind: 'approval' }> } & Omit<Handlers, 'onSource'>) {
  const [reason, setReason] = useState('');
  const [sending, setSending] = useState(false);
  const decide = async (approve: boolean) => {
    setSending(true);
    try {
      const data = await request(WebDecideApprovalDocument, { id: step.approvalId, approve, reason: reason || undefined });
      const result = data.decideApproval;
      if (result.__typename !== 'DecideApprovalSuccess') onProblem(result.message);
      // The turn's stream reports the decision (approval_result) and the work that follows.
      onChanged();
    } catch (error) {
      onProblem((error as Error).message);
    } finally {
      setSending(false);
    }
  };
  const decided = step.decision;
  return (
    <div class={`approval ${decided ? (decided.approved ? 'approved' : 'rejected') : 'pending'}`} data-testid="approval-card">
      <div class="approval-head">
        <strong>{step.agentPath.join(' → ')}</strong> wants to run <code>{step.name}</code>
      </div>
      <Json label="arguments" value={step.arguments} open />
      {decided ? (
        <div class="decision">
          {decided.approved ? 'Approved' : 'Rejected'}
          {decided.decidedBy ? ` by ${decided.decidedBy}` : ''}
          {decided.reason ? `: ${decided.reason}` : ''}
        </div>
      ) : (
        <div class="approval-actions">
          <input placeholder="Reason (optional)" value={reason} onInput={(e) => setReason(e.currentTarget.value)} disabled={sending} />
          <button class="approve" onClick={() => decide(true)} disabled={sending}>
            Approve
          </button>
          <button class="reject" onClick={() => decide(false)} disabled={sending}>
            Reject
          </button>
        </div>
      )}
    </div>
  );
}

function Sources({ sources, onSource }: { sources: Source[]; onSource(query: string): void }) {
  return (
    <div class="sources" data-testid="sources">
      <span class="label">Sources</span>
      {sources.map((s) => (
        <button key={s.key} class="source" title={s.snippet ?? s.key} onClick={() => onSource(`LOOKUP "${s.key}"`)}>
          {s.title ?? s.key}
          {s.score != null && <span class="score">{s.score.toFixed(2)}</span>}
        </button>
      ))}
    </div>
  );
}

function Json({ label, value, open = false }: { label: string; value: unknown; open?: boolean }) {
  return (
    <div class="json">
      <span class="label">{label}</span>
      <pre class={open ? 'open' : ''}>{typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>
    </div>
  );
}

function statusLabel(status: string): string {
  return status === 'AWAITING_APPROVAL' ? 'awaiting approval' : status.toLowerCase().replace('_', ' ');
}
