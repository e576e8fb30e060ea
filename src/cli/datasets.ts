import { parseArgs } from 'node:util';
import { CliError, connectionFrom, connectionOptions, request } from './client.js';
import { CliCreateDatasetFromTurnsDocument } from './generated/graphql.js';
import { positiveInt } from './flags.js';
import { printRecord } from './output.js';

export const DATASETS_USAGE = `remgraph datasets from-turns --name N [--turn ID]… [--agent A] [--session ID]… [--since T] [--until T] [--limit N]

  Makes a dataset of real turns to replay with \`remgraph regress\`: the turns named with --turn, or
  without any your own completed turns that match the filters, oldest first (at most --limit, 50
  by default). Each example keeps its turn: the question, the conversation before it, the answer,
  tool calls and usage. Prints the dataset's id.

  --since / --until T   ISO timestamps bounding when the turns started`;

export async function datasetsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      name: { type: 'string' },
      turn: { type: 'string', multiple: true },
      agent: { type: 'string' },
      session: { type: 'string', multiple: true },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
    },
  });
  const [action, ...extra] = positionals;
  if (action !== 'from-turns' || extra.length) throw new CliError(`datasets: expected from-turns\n\n${DATASETS_USAGE}`);
  if (!values.name) throw new CliError('datasets from-turns: --name is required');
  const input = {
    name: values.name,
    turnIds: values.turn,
    agent: values.agent,
    sessionIds: values.session,
    since: values.since,
    until: values.until,
    limit: values.limit === undefined ? undefined : positiveInt('limit', values.limit),
  };
  const made = (await request(connectionFrom(values), CliCreateDatasetFromTurnsDocument, { input })).createDatasetFromTurns;
  if (made.__typename !== 'CreateDatasetFromTurnsSuccess') throw new CliError(`${made.code}: ${made.message}`);
  printRecord(process.stdout, { id: made.dataset.id, name: made.dataset.name, examples: made.dataset.exampleCount });
  return 0;
}
