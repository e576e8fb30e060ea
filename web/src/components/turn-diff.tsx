import type { ChangeOp } from '../generated/graphql.js';

/** What two turns' answers and tool calls differ by, as compareTurns (and a regression's examples) give it. */
export interface TurnDiff {
  textChanged: boolean;
  text: { op: ChangeOp; text: string }[];
  toolCalls: { op: ChangeOp; name: string; changedArguments: string[]; argumentsA: unknown; argumentsB: unknown; resultChanged: boolean }[];
}

/** The line diff of two answers, or a note that they are the same. */
export function AnswerDiff({ diff }: { diff: TurnDiff }) {
  if (!diff.textChanged) return <p class="hint">The same answer.</p>;
  return (
    <ol class="line-diff" data-testid="text-diff">
      {diff.text.map((line, i) => (
        <li key={i} class={line.op.toLowerCase()} data-op={line.op}>
          <span class="op">{line.op === 'ADDED' ? '+' : line.op === 'REMOVED' ? '−' : ' '}</span>
          {line.text}
        </li>
      ))}
    </ol>
  );
}

/** Each tool call added, removed or changed, with both calls' arguments side by side. */
export function ToolCallChanges({ diff }: { diff: TurnDiff }) {
  if (diff.toolCalls.length === 0) return <p class="hint">Neither turn called a tool.</p>;
  return (
    <>
      {diff.toolCalls.map((call, i) => (
        <div key={i} class={`tool-change ${call.op.toLowerCase()}`} data-testid="tool-change" data-op={call.op}>
          <div class="tool-change-head">
            <code>{call.name}</code> · {call.op.toLowerCase()}
            {call.changedArguments.length > 0 && <> · arguments changed: {call.changedArguments.join(', ')}</>}
            {call.resultChanged && <> · result changed</>}
          </div>
          <div class="compare-sides">
            <Arguments value={call.argumentsA} changed={call.changedArguments} />
            <Arguments value={call.argumentsB} changed={call.changedArguments} />
          </div>
        </div>
      ))}
    </>
  );
}

/** A call's arguments, one key a line, the keys that differ between the two calls marked. */
function Arguments({ value, changed }: { value: unknown; changed: string[] }) {
  if (value === null || value === undefined) return <div class="arguments none">(not called)</div>;
  if (typeof value !== 'object' || Array.isArray(value)) return <pre class="arguments">{JSON.stringify(value, null, 2)}</pre>;
  return (
    <dl class="arguments">
      {Object.entries(value).map(([key, v]) => (
        <div key={key} class={changed.includes(key) ? 'changed' : ''} data-testid={changed.includes(key) ? 'changed-argument' : undefined}>
          <dt>{key}</dt>
          <dd>{JSON.stringify(v)}</dd>
        </div>
      ))}
    </dl>
  );
}
