import { useEffect, useState } from 'preact/hooks';
import { request } from '../api.js';
import { plural, tokenCount } from '../format.js';
import { WebInspectTurnDocument, type InspectCallFragment, type InspectChildFragment, type WebInspectTurnQuery } from '../generated/graphql.js';

type Inspected = NonNullable<WebInspectTurnQuery['turn']>;
type Child = InspectChildFragment & { children?: InspectChildFragment[] };

/** One bar of the waterfall: what ran, from when to when, and what to show when it is opened. */
interface Span {
  kind: 'model' | 'tool' | 'child' | 'approval';
  label: string;
  note: string;
  start: number;
  end: number;
  details: { label: string; value: unknown }[];
  /** A child turn's own model calls and children, shown under it. */
  nested: Span[];
}

const ms = (iso: string) => new Date(iso).getTime();

const tokens = (usage: { inputTokens: number; outputTokens: number; estimated: boolean }) =>
  usage.estimated ? `~${usage.inputTokens}+${usage.outputTokens} tokens (estimated)` : `${usage.inputTokens}+${usage.outputTokens} tokens`;

/**
 * Earlier start first; on a tie (the same millisecond: a tool that ran in under one, then the next model
 * call) the one that ended first, so a call and what it waited for keep their order.
 */
const byTime = (a: Span, b: Span) => a.start - b.start || a.end - b.end;

function modelSpans(calls: readonly InspectCallFragment[] | null): Span[] {
  return (calls ?? []).map((call) => {
    const end = ms(call.createdAt);
    return {
      kind: 'model',
      label: `model call ${call.iteration}`,
      note: `${call.model} · ${call.latencyMs} ms · ${tokens(call.usage)} · ${call.error ? `error: ${call.error}` : (call.finishReason ?? 'no finish reason')}`,
      start: end - call.latencyMs,
      end,
      details: [{ label: 'request body', value: call.request ?? '(not recorded for this model)' }],
      nested: [],
    };
  });
}

/** What ran inside a child turn: its model calls and, as child spans, its own children. */
function nestedSpans(child: Child): Span[] {
  const grandchildren = (child.children ?? []).map((c): Span => ({
    kind: 'child',
    label: `child: ${c.agent}`,
    note: c.status.toLowerCase().replace('_', ' '),
    start: ms(c.startedAt),
    end: c.finishedAt ? ms(c.finishedAt) : Date.now(),
    details: [{ label: 'child turn', value: c.id }],
    nested: nestedSpans(c),
  }));
  return [...modelSpans(child.llmCalls), ...grandchildren].sort(byTime);
}

/** The spans of a turn from its model calls, its event log, its children's model calls and its approvals. */
function spansOf(turn: Inspected): Span[] {
  const spans = modelSpans(turn.llmCalls);
  const tools = new Map<string, Span>();
  const children = new Map<string, Span>();
  // Tool call ids are the model's: unique within a turn, not across a parent and its children.
  const childTools = new Map<string, Map<string, Span>>();
  for (const event of turn.events) {
    if (!('at' in event)) continue;
    const at = ms(event.at);
    if (event.__typename !== 'ChildEvent') {
      trackTool(event, at, tools, spans);
      continue;
    }
    let span = children.get(event.childTurnId);
    if (!span) {
      span = {
        kind: 'child',
        label: `child: ${event.childAgent}`,
        note: 'running',
        start: at,
        end: at,
        details: [{ label: 'child turn', value: event.childTurnId }],
        nested: nestedOf(turn, event.childTurnId),
      };
      children.set(event.childTurnId, span);
      childTools.set(event.childTurnId, new Map());
      spans.push(span);
    }
    span.end = at;
    // The child's own tool calls go under it, with its model calls.
    trackTool(event.event, at, childTools.get(event.childTurnId)!, span.nested);
    if (event.event.__typename === 'FinalEvent') span.note = event.event.status.toLowerCase();
  }
  for (const span of children.values()) {
    span.nested.sort(byTime);
    // A child's first event in this log comes after its first model call: the child began with that call.
    span.start = Math.min(span.start, ...span.nested.map((nested) => nested.start));
    if (span.note !== 'running') span.note += ` · ${span.end - span.start} ms`;
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
      nested: [],
    });
  }
  return spans.sort(byTime);
}

type InspectedEvent = Inspected['events'][number];
type ChildInner = Extract<InspectedEvent, { __typename: 'ChildEvent' }>['event'];

/** A tool call opens a span (into `spans`); its result, matched by tool call id, closes it. */
function trackTool(event: InspectedEvent | ChildInner, at: number, tools: Map<string, Span>, spans: Span[]) {
  if (event.__typename === 'ToolCallEvent') {
    const span: Span = {
      kind: 'tool',
      label: event.name,
      note: 'running',
      start: at,
      end: at,
      details: [{ label: 'arguments', value: event.arguments }],
      nested: [],
    };
    tools.set(event.toolCallId, span);
    spans.push(span);
  } else if (event.__typename === 'ToolResultEvent') {
    const span = tools.get(event.toolCallId);
    if (!span) return;
    span.end = at;
    span.note = `${event.isError ? 'failed' : 'done'} · ${at - span.start} ms`;
    span.details.push({ label: 'result', value: event.result });
  }
}

function nestedOf(turn: Inspected, childTurnId: string): Span[] {
  const child = turn.children.find((c) => c.id === childTurnId);
  return child ? nestedSpans(child) : [];
}

/** Spans in waterfall order, each followed by what ran inside it, one level deeper. */
function flatten(spans: Span[], depth = 0): { span: Span; depth: number }[] {
  return spans.flatMap((span) => [{ span, depth }, ...flatten(span.nested, depth + 1)]);
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

  const rows = turn ? flatten(spansOf(turn)) : [];
  const t0 = turn ? Math.min(ms(turn.startedAt), ...rows.map((r) => r.span.start)) : 0;
  const t1 = turn ? Math.max(turn.finishedAt ? ms(turn.finishedAt) : Date.now(), ...rows.map((r) => r.span.end)) : 1;
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
            {tokenCount(turn.usage)}
            {turn.traceId && (
              <>
                {' '}
                · trace <code data-testid="trace-id">{turn.traceId}</code>
              </>
            )}
          </div>
          {turn.llmCalls === null && <p class="hint">Model calls are shown to the turn’s owner only.</p>}
          <ol class="waterfall">
            {rows.map(({ span, depth }, i) => (
              <li key={i} class={`span ${span.kind}`} data-testid="span" data-kind={span.kind} data-depth={depth} style={{ '--depth': depth }}>
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
