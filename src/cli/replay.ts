import { parseArgs } from 'node:util';
import { CliError, connectionFrom, connectionOptions, followTurn, request } from './client.js';
import { CliCompareTurnsDocument, CliReplayTurnDocument, type CliCompareTurnsQuery, type ReplayOverridesInput } from './generated/graphql.js';
import { positiveInt } from './flags.js';
import { cell } from './output.js';

export const REPLAY_USAGE = `remgraph replay <turnId> [--model M] [--temperature T] [--agent-version N] [--system-suffix S] [--json]

  Asks a turn's user message again, with the same history, on a fork of its session (yours), with
  what the flags change; waits for the new turn to end, then prints how it differs from the first:
  the answer line by line, tool calls (changed arguments by name), sources, usage, latency, model
  calls. On a terminal for people; JSON (one object) when stdout is not a terminal or with --json.
  Exits 0 when the replay completed, 1 otherwise.

  --model M           provider:model (default: the turn's)
  --temperature T     0 to 2
  --agent-version N   a registered version of the turn's agent (default: the turn's)
  --system-suffix S   appended to the agent's system prompt`;

type Comparison = CliCompareTurnsQuery['compareTurns'];

export async function replayCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      model: { type: 'string' },
      temperature: { type: 'string' },
      'agent-version': { type: 'string' },
      'system-suffix': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [turnId, ...extra] = positionals;
  if (!turnId || extra.length) throw new CliError(`replay: expected one turn id\n\n${REPLAY_USAGE}`);
  const overrides: ReplayOverridesInput = {
    model: values.model,
    temperature: values.temperature === undefined ? undefined : number('temperature', values.temperature),
    agentVersion: values['agent-version'] === undefined ? undefined : positiveInt('agent-version', values['agent-version']),
    systemPromptSuffix: values['system-suffix'],
  };
  const connection = connectionFrom(values);
  const replayed = (await request(connection, CliReplayTurnDocument, { turnId, overrides })).replayTurn;
  if (replayed.__typename !== 'SendMessagePayload') throw new CliError(`${replayed.code}: ${replayed.message}`);
  process.stderr.write(`replaying as turn ${replayed.turn.id} in session ${replayed.session.id}\n`);
  await followTurn(connection, replayed.turn.id, () => {});
  const { compareTurns } = await request(connection, CliCompareTurnsDocument, { a: turnId, b: replayed.turn.id });
  if (values.json || !process.stdout.isTTY) process.stdout.write(`${JSON.stringify({ session: replayed.session.id, ...compareTurns })}\n`);
  else process.stdout.write(describe(compareTurns, !process.env.NO_COLOR));
  return compareTurns.b.turn.status === 'COMPLETED' ? 0 : 1;
}

function number(flag: string, text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new CliError(`--${flag}: expected a number, got "${text}"`);
  return n;
}

/** The comparison for people: a line per difference, `-` for the first turn, `+` for the replay. */
function describe(c: Comparison, color: boolean): string {
  const paint = (code: number) => (text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const [red, green, yellow, dim] = [paint(31), paint(32), paint(33), paint(2)];
  const mark = { SAME: ' ', ADDED: green('+'), REMOVED: red('-'), CHANGED: yellow('~') } as const;
  const lines: string[] = [];
  for (const [label, side] of [
    ['a', c.a],
    ['b', c.b],
  ] as const) {
    const { turn, usage } = side;
    const agent = turn.agentVersion === null ? turn.agent : `${turn.agent}@${turn.agentVersion}`;
    const latency = side.latencyMs === null ? 'running' : `${side.latencyMs} ms`;
    lines.push(
      `${label}: turn ${turn.id} ${turn.status}  ${agent}  ${side.models[0] ?? turn.model ?? ''}  ${side.modelCalls} model call(s)  ` +
        `${usage.inputTokens} in / ${usage.outputTokens} out tokens  ${latency}`,
    );
  }
  lines.push('', `answer${c.textChanged ? '' : dim(' (unchanged)')}:`);
  for (const line of c.text) lines.push(`${mark[line.op]} ${line.op === 'SAME' ? dim(line.text) : line.text}`);
  lines.push('', `tool calls${c.toolCalls.length ? '' : dim(' (none)')}:`);
  for (const call of c.toolCalls) {
    if (call.op === 'ADDED') lines.push(`${mark.ADDED} ${call.name} ${cell(call.argumentsB, 200)}`);
    else if (call.op === 'REMOVED') lines.push(`${mark.REMOVED} ${call.name} ${cell(call.argumentsA, 200)}`);
    else if (call.op === 'SAME') lines.push(`${mark.SAME} ${call.name} ${dim(cell(call.argumentsA, 200))}`);
    else {
      const what = [call.changedArguments.length ? `arguments ${call.changedArguments.join(', ')}` : '', call.resultChanged ? 'result' : ''].filter(Boolean);
      lines.push(`${mark.CHANGED} ${call.name}: ${what.join(' and ')} changed`);
      if (call.changedArguments.length) lines.push(`    a: ${cell(call.argumentsA, 200)}`, `    b: ${cell(call.argumentsB, 200)}`);
      if (call.resultChanged) lines.push(`    a result: ${cell(call.resultA, 200)}`, `    b result: ${cell(call.resultB, 200)}`);
    }
  }
  const { added, removed } = c.sources;
  lines.push('', `sources${added.length || removed.length ? '' : dim(' (unchanged)')}:`);
  for (const source of removed) lines.push(`${mark.REMOVED} ${source.key}${source.title ? ` ${source.title}` : ''}`);
  for (const source of added) lines.push(`${mark.ADDED} ${source.key}${source.title ? ` ${source.title}` : ''}`);
  return `${lines.join('\n')}\n`;
}
