import { useEffect, useState } from 'preact/hooks';
import { request } from '../api.js';
import { followTurn } from '../follow.js';
import { plural, tokenCount } from '../format.js';
import {
  WebCompareTurnsDocument,
  WebForkSessionDocument,
  WebReplayTurnDocument,
  WebTurnAnswerDocument,
  type WebComparedTurnFragment,
  type WebCompareTurnsQuery,
} from '../generated/graphql.js';
import { renderMarkdown } from '../markdown.js';
import { TurnView } from '../turn-view.js';
import { AnswerDiff, ToolCallChanges } from './turn-diff.js';

/** Where to fork: after a stored message, or after a turn's answer. */
export type ForkPoint = { messageId: string } | { turnId: string };

/** Forks the session after `at` into a new session of the caller's; returns the new session's id. */
export async function forkSession(sessionId: string, at: ForkPoint): Promise<string> {
  let atMessageId = 'messageId' in at ? at.messageId : null;
  if ('turnId' in at) {
    atMessageId = (await request(WebTurnAnswerDocument, { id: at.turnId })).turn?.finalMessage?.id ?? null;
    if (!atMessageId) throw new Error('This turn stored no answer to fork at.');
  }
  const result = (await request(WebForkSessionDocument, { sessionId, atMessageId: atMessageId! })).forkSession;
  if (result.__typename !== 'ForkSessionSuccess') throw new Error(result.message);
  return result.session.id;
}

function useEscape(onClose: () => void) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [onClose]);
}

interface FormProps {
  turnId: string;
  models: string[];
  onReplayed(a: string, b: string): void;
  onClose(): void;
}

/** "Replay with…": asks a turn's question again in a fork of its session, with another model, temperature or system prompt suffix. */
export function ReplayForm({ turnId, models, onReplayed, onClose }: FormProps) {
  const [model, setModel] = useState('');
  const [temperature, setTemperature] = useState('');
  const [suffix, setSuffix] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEscape(onClose);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const overrides = {
        model: model.trim() || undefined,
        temperature: temperature.trim() === '' ? undefined : Number(temperature),
        systemPromptSuffix: suffix.trim() || undefined,
      };
      const result = (await request(WebReplayTurnDocument, { turnId, overrides })).replayTurn;
      if (result.__typename !== 'SendMessagePayload') return setProblem(result.message);
      onReplayed(turnId, result.turn.id);
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="overlay replay-form" role="dialog" aria-label="Replay with" data-testid="replay-form">
      <div class="overlay-head">
        <h2>Replay with…</h2>
        <button class="link" onClick={onClose}>
          Close
        </button>
      </div>
      <p class="hint">Asks the same message again in a fork of this session; leave a field empty to keep the original’s.</p>
      <form onSubmit={submit}>
        <label>
          Model
          <input list="replay-models" value={model} onInput={(e) => setModel(e.currentTarget.value)} placeholder="same model" data-testid="replay-model" />
          <datalist id="replay-models">
            {models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>
        <label>
          Temperature
          <input
            type="number"
            min="0"
            max="2"
            step="0.1"
            value={temperature}
            onInput={(e) => setTemperature(e.currentTarget.value)}
            placeholder="same"
            data-testid="replay-temperature"
          />
        </label>
        <label>
          System prompt suffix
          <textarea rows={3} value={suffix} onInput={(e) => setSuffix(e.currentTarget.value)} data-testid="replay-suffix" />
        </label>
        {problem && (
          <div class="problem" role="alert">
            {problem}
          </div>
        )}
        <button type="submit" disabled={busy} data-testid="replay-submit">
          Replay
        </button>
      </form>
    </div>
  );
}

type Comparison = WebCompareTurnsQuery['compareTurns'];

/** Side by side: turn a (the original) and turn b (its replay), once b has ended, with what changed. */
export function CompareView({ a, b, onClose }: { a: string; b: string; onClose(): void }) {
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEscape(onClose);
  useEffect(() => {
    const view = new TurnView(b, '', 'RUNNING');
    let loaded = false;
    const stop = followTurn(view, {
      changed: () => {
        if (!view.finished || loaded) return;
        loaded = true;
        request(WebCompareTurnsDocument, { a, b })
          .then((data) => setComparison(data.compareTurns))
          .catch((error: Error) => setProblem(error.message));
      },
      connection: () => {},
      failed: setProblem,
    });
    return stop;
  }, [a, b]);
  return (
    <div class="overlay compare" role="dialog" aria-label="Compare turns" data-testid="compare">
      <div class="overlay-head">
        <h2>Original and replay</h2>
        <button class="link" onClick={onClose}>
          Close
        </button>
      </div>
      {problem && <div class="problem">{problem}</div>}
      {!comparison && !problem && <p class="hint">Replaying…</p>}
      {comparison && (
        <>
          <div class="compare-sides">
            <Side label="Original" side={comparison.a} />
            <Side label="Replay" side={comparison.b} />
          </div>
          <h3>Answer</h3>
          <AnswerDiff diff={comparison} />
          <h3>Tool calls</h3>
          <ToolCallChanges diff={comparison} />
          {(comparison.sources.added.length > 0 || comparison.sources.removed.length > 0) && (
            <>
              <h3>Sources</h3>
              <p>
                {comparison.sources.removed.map((s) => (
                  <span key={s.key} class="chip removed">
                    − {s.key}
                  </span>
                ))}
                {comparison.sources.added.map((s) => (
                  <span key={s.key} class="chip added">
                    + {s.key}
                  </span>
                ))}
              </p>
            </>
          )}
        </>
      )}
    </div>
  );
}

function Side({ label, side }: { label: string; side: WebComparedTurnFragment }) {
  return (
    <section class="compare-side" data-testid="compare-side">
      <h3>
        {label}{' '}
        <a class="link" href={`#/session/${side.turn.session.id}`}>
          open session
        </a>
      </h3>
      <div class="meta" data-testid="compare-meta">
        {side.turn.agent} · {[...new Set(side.models)].join(', ') || 'no model call'} · {side.latencyMs ?? '–'} ms · {tokenCount(side.usage)} ·{' '}
        {plural(side.modelCalls, 'model call')}
      </div>
      <div class="md" dangerouslySetInnerHTML={{ __html: renderMarkdown(side.text ?? '') }} />
    </section>
  );
}
