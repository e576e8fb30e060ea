import { parseArgs } from 'node:util';
import { CliError, connectionFrom, connectionOptions, request } from './client.js';
import { CliUsageDocument, type UsageGroupBy } from './generated/graphql.js';
import { printRows } from './output.js';

export const USAGE_USAGE = `remgraph usage [--by agent|model|day] [--since T] [--until T]

  Tokens, requests and latency of your model calls per agent (default), model or UTC day, most
  tokens first; T is an ISO date or time (since inclusive, until exclusive).`;

const GROUPS: Record<string, UsageGroupBy> = { agent: 'AGENT', model: 'MODEL', day: 'DAY' };

export async function usageCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...connectionOptions, by: { type: 'string', default: 'agent' }, since: { type: 'string' }, until: { type: 'string' } },
  });
  const groupBy = GROUPS[values.by];
  if (!groupBy) throw new CliError(`--by: expected agent, model or day, got ${values.by}`);
  const { usage } = await request(connectionFrom(values), CliUsageDocument, {
    groupBy,
    since: instant('since', values.since),
    until: instant('until', values.until),
  });
  printRows(process.stdout, usage, ['key', 'requests', 'inputTokens', 'outputTokens', 'totalTokens', 'avgLatencyMs']);
  return 0;
}

function instant(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new CliError(`--${flag}: expected an ISO date or time, got ${value}`);
  return at.toISOString();
}
