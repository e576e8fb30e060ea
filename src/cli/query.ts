import { parseArgs } from 'node:util';
import { CliError, connectionFrom, connectionOptions, request } from './client.js';
import { CliRemQueryDocument } from './generated/graphql.js';
import { printRows } from './output.js';
import { REM_DIALECT_MODES } from '../rem/dialect.js';

export const QUERY_USAGE = `remgraph query '<REM query>'

  Runs one REM query as the caller. Prints a table on a terminal and one JSON object a line
  otherwise (hits, or the rows of SQL mode).

${Object.values(REM_DIALECT_MODES)
  .map((mode) => `  ${mode.example}\n      ${mode.use}`)
  .join('\n')}`;

export async function queryCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: connectionOptions, allowPositionals: true });
  const query = positionals.join(' ').trim();
  if (!query) throw new CliError(`query needs a REM query, e.g. remgraph query 'LOOKUP "sarah-chen"'`);
  const { remQuery: result } = await request(connectionFrom(values), CliRemQueryDocument, { query });
  if (result.mode === 'SQL') {
    const rows = Array.isArray(result.rows) ? (result.rows as Record<string, unknown>[]) : [];
    printRows(process.stdout, rows, Object.keys(rows[0] ?? {}));
    if (result.truncated) process.stderr.write('(more rows matched than the row or byte cap lets through)\n');
    return 0;
  }
  // Only the fields this mode fills: LOOKUP's content, TRAVERSE's depth, path and relation, SEARCH's page.
  const hits = result.hits.map((hit) => Object.fromEntries(Object.entries(hit).filter(([, value]) => value !== null)));
  const columns = [
    'key',
    'entityType',
    'score',
    'name',
    'summary',
    ...(result.mode === 'TRAVERSE' ? ['depth', 'relType'] : []),
    ...(result.mode === 'SEARCH' ? ['page'] : []),
  ];
  printRows(process.stdout, hits, columns);
  return 0;
}
