import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CliError, connectionFrom, connectionOptions, request, type Connection } from './client.js';
import { CliExperimentProgressDocument, CliRegressionDocument, CliRunRegressionDocument, type CliRegressionQuery } from './generated/graphql.js';
import { positiveInt } from './flags.js';
import { cell, printRows } from './output.js';
import { progressBar } from './progress-bar.js';

export const REGRESS_USAGE = `remgraph regress <datasetId> [--model M] [--agent A] [--agent-version N] [--evaluator E]… [--concurrency N] [--json]

  Replays every turn of a dataset made with \`remgraph datasets from-turns\`, each on a fork of its
  own conversation (the original sessions are not touched), with what the flags change, and has
  each evaluator judge the original answer and the replay's. Shows progress while it runs, then a
  table (example, verdict, score a → b, tokens, latency) and a summary; JSON (one object) when
  stdout is not a terminal or with --json. Exits 0 when the regression ran, 1 when it failed.

  --model M           provider:model (default: each turn's)
  --agent A           the candidate agent (default: each turn's)
  --agent-version N   a registered version of the candidate agent
  --evaluator E       an evaluator agent; repeat for more (default: answer-quality)
  --concurrency N     examples replayed at once`;

type Report = CliRegressionQuery['regression'];

const POLL_MS = 250;

export async function regressCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      model: { type: 'string' },
      agent: { type: 'string' },
      'agent-version': { type: 'string' },
      evaluator: { type: 'string', multiple: true },
      concurrency: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [datasetId, ...extra] = positionals;
  if (!datasetId || extra.length) throw new CliError(`regress: expected one dataset id\n\n${REGRESS_USAGE}`);
  const connection = connectionFrom(values);
  const input = {
    datasetId,
    model: values.model,
    agent: values.agent,
    agentVersion: values['agent-version'] === undefined ? undefined : positiveInt('agent-version', values['agent-version']),
    evaluators: values.evaluator ?? ['answer-quality'],
    concurrency: values.concurrency === undefined ? undefined : positiveInt('concurrency', values.concurrency),
  };
  const queued = (await request(connection, CliRunRegressionDocument, { input })).runRegression;
  if (queued.__typename !== 'RunRegressionSuccess') throw new CliError(`${queued.code}: ${queued.message}`);
  const { id } = queued.experiment;
  process.stderr.write(`regression ${id}: ${queued.experiment.total} example(s)\n`);
  await untilEnded(connection, id);
  const { regression } = await request(connection, CliRegressionDocument, { experimentId: id });
  if (values.json || !process.stdout.isTTY) process.stdout.write(`${JSON.stringify(regression)}\n`);
  else describe(regression);
  return regression.experiment.status === 'DONE' ? 0 : 1;
}

/** Shows done/total on stderr until the experiment is DONE or FAILED. */
async function untilEnded(connection: Connection, id: string) {
  const bar = progressBar(process.stderr, 'examples');
  try {
    for (;;) {
      const { experiment } = await request(connection, CliExperimentProgressDocument, { id });
      if (!experiment) throw new CliError(`experiment ${id} is gone`);
      bar.update({ done: experiment.done, total: experiment.total });
      if (experiment.status === 'DONE' || experiment.status === 'FAILED') return;
      await sleep(POLL_MS);
    }
  } finally {
    bar.end();
  }
}

function describe(r: Report) {
  const rows = r.examples.map((e) => ({
    example: `${e.ord} ${cell(e.example.input, 40)}`,
    verdict: e.verdict ?? e.result.status,
    score: `${score(e.original.scores, r.experiment.evaluators)} → ${e.candidate ? score(e.candidate.scores, r.experiment.evaluators) : '-'}`,
    tokens: `${tokens(e.original.usage)} → ${e.candidate ? tokens(e.candidate.usage) : '-'}`,
    latency: `${ms(e.original.latencyMs)} → ${ms(e.candidate?.latencyMs ?? null)}`,
  }));
  printRows(process.stdout, rows, ['example', 'verdict', 'score', 'tokens', 'latency']);
  const s = r.summary;
  const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
  process.stdout.write(
    `\n${s.finished}/${s.total} replayed: ${s.improved} improved, ${s.regressed} regressed, ${s.unchanged} unchanged\n` +
      `tokens ${s.tokensA} → ${s.tokensB} (${signed(s.tokensDelta)})  latency ${s.latencyMsA} ms → ${s.latencyMsB} ms (${signed(s.latencyMsDelta)} ms)\n`,
  );
}

/** Per evaluator, the mean of its numeric scores. */
function score(scores: unknown, evaluators: string[]): string {
  const byEvaluator = (scores ?? {}) as Record<string, Record<string, unknown> | undefined>;
  return evaluators
    .map((name) => {
      const numbers = Object.values(byEvaluator[name] ?? {}).filter((v): v is number => typeof v === 'number');
      return numbers.length ? (numbers.reduce((a, b) => a + b, 0) / numbers.length).toFixed(2) : '-';
    })
    .join(' ');
}

const tokens = (u: { inputTokens: number; outputTokens: number }) => String(u.inputTokens + u.outputTokens);
const ms = (value: number | null) => (value === null ? '-' : `${value} ms`);
