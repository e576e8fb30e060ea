import { useEffect, useState } from 'preact/hooks';
import { request } from '../api.js';
import { plural } from '../format.js';
import { WebInspectTurnDocument, type WebInspectTurnQuery } from '../generated/graphql.js';

type Inspected = NonNullable<WebInspectTurnQuery['turn']>;

/** One bar of the waterfall: what ran, from when to when, and what to show when it is opened. */
interface Span {
  kind: 'model' | 'tool' | 'child' | 'approval';
  label: string;
  note: string;
  start: number;
  end: number;
  details: { label: string; value: unknown }[];
}

const ms = (iso: string) => new Date(iso).getTime();

/** The spans of a turn from its model calls, its event log and its approvals. */
function spansOf(turn: Inspected): Span[] {
  const spans: Span[] = [];
  for (const call of turn.llmCalls ?? []) {
    const end = ms(call.createdAt);
    spans.push({
      kind: 'model',
      label: `model call ${call.iteration}`,
      note: `${call.model} · ${call.latencyMs} ms · ${call.usage.inputTokens}+${call.usage.outputTokens} tokens · ${call.error ? `error: ${call.error}` : (call.finishReason ?? 'no finish reason')}`,
      start: end - call.latencyMs,
      end,
      details: [{ label: 'request body', value: call.request ?? '(not recorded for this model)' }],
    });
  }
  const tools = new Map<string, Span>();
  const children = new Map<string, Span>();
  for (const event of turn.events) {
    if (!('at' in event)) continue;
    const at = ms(event.at);
    if (event.__typename === 'ToolCallEvent') {
      const span: Span = { kind: 'tool', label: event.name, note: 'running', start: at, end: at, details: [{ label: 'arguments', value: event.arguments }] };
      tools.set(event.toolCallId, span);
      spans.push(span);
    } else if (event.__typename === 'ToolResultEvent') {
      const span = tools.get(event.toolCallId);
      if (span) {
        span.end = at;
        span.note = `${event.isError ? 'failed' : 'done'} · ${at - span.start} ms`;
        span.details.push({ label: 'result', value: event.result });
      }
    } else if (event.__typename === 'ChildEvent') {
      let span = children.get(event.childTurnId);
      if (!span) {
        span = {
          kind: 'child',
          label: `child: ${event.childAgent}`,
          note: 'running',
          start: at,
          end: at,
          details: [{ label: 'child turn', value: event.childTurnId }],
        };
        children.set(event.childTurnId, span);
        spans.push(span);
      }
      span.end = at;
      if (event.event.__typename === 'FinalEvent') span.note = `${event.event.status.toLowerCase()} · ${at - span.start} ms`;
    }
  }
  for (const approval of turn.approvals) {
    const start = ms(approval.createdAt);
    const end = approval.decidedAt ? ms(approval.decidedAt) : Date.now();
    spans.push({
      kind: 'approval',
      label: `approval: ${approval.toolName}`,
      note: `${approval.status.toLowerCase()}${approval.decidedBy ? ` by ${approval.decidedBy}` : ''} · ${end - start} ms`,
      start,
      end,
      details: [],
    });
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** The run inspector: a waterfall of a turn's model calls, tool calls, child turns and approvals. */
export function Inspector({ turnId, onClose }: { turnId: string; onClose(): void }) {
  const [turn, setTurn] = useState<Inspected | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    request(WebInspectTurnDocument, { id: turnId })
      .then((data) => (data.turn ? setTurn(data.turn) : setError('This turn does not exist (or is not yours).')))
      .catch((e: Error) => setError(e.message));
  }, [turnId]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [onClose]);

  const spans = turn ? spansOf(turn) : [];
  const t0 = turn ? Math.min(ms(turn.startedAt), ...spans.map((s) => s.start)) : 0;
  const t1 = turn ? Math.max(turn.finishedAt ? ms(turn.finishedAt) : Date.now(), ...spans.map((s) => s.end)) : 1;
  const total = Math.max(1, t1 - t0);
  return (
    <div class="inspector" role="dialog" aria-label="Run inspector" data-testid="inspector">
      <div class="inspector-head">
        <h2>Run inspector</h2>
        <button class="link" onClick={onClose}>
          Close
        </button>
      </div>
      {error && <div class="problem">{error}</div>}
      {turn && (
        <>
          <div class="meta">
            <strong>{turn.agent}</strong> · {turn.status.toLowerCase().replace('_', ' ')} · {total} ms · {plural(turn.usage.requests, 'model call')} ·{' '}
            {turn.usage.inputTokens + turn.usage.outputTokens} tokens
            {turn.traceId && (
              <>
                {' '}
                · trace <code data-testid="trace-id">{turn.traceId}</code>
              </>
            )}
          </div>
          {turn.llmCalls === null && <p class="hint">Model calls are shown to the turn’s owner only.</p>}
          <ol class="waterfall">
            {spans.map((span, i) => (
              <li key={i} class={`span ${span.kind}`} data-testid="span" data-kind={span.kind}>
                <details>
                  <summary>
                    <span class="span-label">{span.label}</span>
                    <span class="span-track">
                      <span
                        class="span-bar"
                        style={{ left: `${((span.start - t0) / total) * 100}%`, width: `max(2px, ${((span.end - span.start) / total) * 100}%)` }}
                      />
                    </span>
                    <span class="span-note">{span.note}</span>
                  </summary>
                  {span.details.map((d) => (
                    <div class="json" key={d.label}>
                      <span class="label">{d.label}</span>
                      <pre>{typeof d.value === 'string' ? d.value : JSON.stringify(d.value, null, 2)}</pre>
                    </div>
                  ))}
                </details>
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
