import { useCallback, useEffect, useState } from 'preact/hooks';
import { request, subscribe } from '../api.js';
import { tokenCount } from '../format.js';
import {
  WebExperimentProgressDocument,
  WebExperimentsDocument,
  WebRegressionDocument,
  type WebExperimentHeadFragment,
  type WebRegressionQuery,
  type WebRegressionSideFragment,
} from '../generated/graphql.js';
import { AnswerDiff, ToolCallChanges } from './turn-diff.js';

type Report = WebRegressionQuery['regression'];
type Example = Report['examples'][number];

const running = (e: { status: string }) => e.status === 'QUEUED' || e.status === 'RUNNING';
const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

/** The experiments view: the caller's experiments; a regression opens to its examples side by side, with diffs, scores, verdicts and the summary, live while it runs. */
export function ExperimentsPanel({ onClose }: { onClose: () => void }) {
  const [experiments, setExperiments] = useState<WebExperimentHeadFragment[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const updated = useCallback((head: WebExperimentHeadFragment) => setExperiments((list) => list?.map((e) => (e.id === head.id ? head : e)) ?? null), []);

  useEffect(() => {
    request(WebExperimentsDocument)
      .then((data) => setExperiments(data.experiments.edges.map((e) => e.node)))
      .catch((e: Error) => setError(e.message));
  }, []);

  return (
    <section class="overlay experiments" data-testid="experiments">
      <div class="overlay-head">
        <h2>Experiments</h2>
        <button class="icon" title="Close" onClick={onClose}>
          ✕
        </button>
      </div>
      {error && <div class="error">{error}</div>}
      {experiments?.length === 0 && <p class="hint">No experiments yet: run one with runExperiment, runRegression or `remgraph regress`.</p>}
      <ul class="experiment-list">
        {experiments?.map((e) => (
          <li key={e.id} data-testid="experiment" data-status={e.status}>
            {e.regression ? (
              <button onClick={() => setOpen(e.id)} data-testid="open-experiment">
                {e.dataset.name}
              </button>
            ) : (
              <strong>{e.dataset.name}</strong>
            )}
            <span class="meta">
              {' '}
              · {e.regression ? 'regression' : 'experiment'} · {e.agent}
              {e.model ? ` on ${e.model}` : ''} · {e.status.toLowerCase()} {e.done}/{e.total} · {new Date(e.createdAt).toLocaleString()}
            </span>
          </li>
        ))}
      </ul>
      {open && <RegressionReport key={open} experimentId={open} onRead={updated} />}
    </section>
  );
}

/** One regression, read again after every example it finishes while it runs; `onRead` keeps the list's line of it current. */
function RegressionReport({ experimentId, onRead }: { experimentId: string; onRead: (head: WebExperimentHeadFragment) => void }) {
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const load = () =>
      request(WebRegressionDocument, { experimentId })
        .then((data) => {
          setReport(data.regression);
          onRead(data.regression.experiment);
        })
        .catch((e: Error) => setError(e.message));
    void load();
    return subscribe(
      WebExperimentProgressDocument,
      { id: experimentId },
      { next: () => void load(), complete: () => void load(), error: (e) => setError(e.message) },
    );
  }, [experimentId, onRead]);

  if (error) return <div class="error">{error}</div>;
  if (!report) return <p class="hint">Loading…</p>;
  const { experiment, summary } = report;
  return (
    <article class="regression" data-testid="regression">
      <h3>
        {experiment.dataset.name}{' '}
        <span class="meta">
          · {experiment.agent}
          {experiment.model ? ` on ${experiment.model}` : ''}
        </span>
      </h3>
      {running(experiment) && (
        <div class="progress" data-testid="regression-progress">
          <progress max={experiment.total} value={experiment.done} /> {experiment.done} of {experiment.total} examples
        </div>
      )}
      <p class="summary" data-testid="regression-summary">
        {summary.improved} improved · {summary.regressed} regressed · {summary.unchanged} unchanged ({summary.finished} of {summary.total} finished) · tokens{' '}
        {summary.tokensA} → {summary.tokensB} ({signed(summary.tokensDelta)}) · latency {summary.latencyMsA} → {summary.latencyMsB} ms (
        {signed(summary.latencyMsDelta)} ms)
      </p>
      {report.examples.map((example) => (
        <RegressionExampleView key={example.ord} example={example} evaluators={experiment.evaluators} />
      ))}
    </article>
  );
}

function RegressionExampleView({ example, evaluators }: { example: Example; evaluators: string[] }) {
  const verdict = example.verdict ?? (example.result.status === 'ERROR' ? 'ERROR' : 'PENDING');
  return (
    <section class="regression-example" data-testid="regression-example" data-verdict={verdict}>
      <h4>
        #{example.ord} {example.example.input}{' '}
        <span class={`verdict ${verdict.toLowerCase()}`} data-testid="verdict">
          {verdict.toLowerCase()}
        </span>
      </h4>
      {example.result.error != null && <div class="problem">{JSON.stringify(example.result.error)}</div>}
      <div class="compare-sides">
        <Side label="Original" side={example.original} />
        {example.candidate ? <Side label="Candidate" side={example.candidate} /> : <p class="hint">Not replayed yet.</p>}
      </div>
      <Scores evaluators={evaluators} a={example.original.scores} b={example.candidate?.scores} />
      {example.comparison && (
        <details open>
          <summary>Answer and tool calls</summary>
          <AnswerDiff diff={example.comparison} />
          <ToolCallChanges diff={example.comparison} />
        </details>
      )}
    </section>
  );
}

function Side({ label, side }: { label: string; side: WebRegressionSideFragment }) {
  return (
    <div class="compare-side" data-testid="regression-side">
      <strong>{label}</strong>
      <div class="meta">
        {tokenCount(side.usage)} · {side.latencyMs ?? '–'} ms
      </div>
      <p data-testid="side-output">{side.output ?? '(no answer)'}</p>
    </div>
  );
}

/** Each evaluator's numeric and yes/no fields, original → candidate. */
function Scores({ evaluators, a, b }: { evaluators: string[]; a: unknown; b: unknown }) {
  const of = (scores: unknown, evaluator: string) =>
    ((scores as Record<string, Record<string, unknown> | undefined> | null)?.[evaluator] ?? {}) as Record<string, unknown>;
  return (
    <table class="scores" data-testid="scores">
      <tbody>
        {evaluators.flatMap((evaluator) => {
          const [left, right] = [of(a, evaluator), of(b, evaluator)];
          const fields = [...new Set([...Object.keys(left), ...Object.keys(right)])].filter((k) =>
            [left[k], right[k]].some((v) => typeof v === 'number' || typeof v === 'boolean'),
          );
          return fields.map((field) => (
            <tr key={`${evaluator}.${field}`} data-testid="score">
              <th>
                {evaluator} {field}
              </th>
              <td>{String(left[field] ?? '–')}</td>
              <td>→ {String(right[field] ?? '–')}</td>
            </tr>
          ));
        })}
      </tbody>
    </table>
  );
}
