import { parseArgs } from 'node:util';
import { CliError, connectionFrom, connectionOptions, request } from './client.js';
import { CliSessionDocument, CliSessionsDocument } from './generated/graphql.js';
import { positiveInt } from './flags.js';
import { cell, printRecord, printRows } from './output.js';

export const SESSIONS_USAGE = `remgraph sessions list [--first N]     your sessions, most recently updated first
remgraph sessions show <id> [--first N] one session and its first N messages (default 100)`;

export async function sessionsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { ...connectionOptions, first: { type: 'string' } }, allowPositionals: true });
  const connection = connectionFrom(values);
  const first = values.first === undefined ? undefined : positiveInt('first', values.first);
  const [action, id] = positionals;
  if (action === 'list' && !id) {
    const { sessions } = await request(connection, CliSessionsDocument, { first: first ?? 20 });
    printRows(
      process.stdout,
      sessions.edges.map((e) => e.node),
      ['id', 'name', 'agent', 'updatedAt'],
    );
    return 0;
  }
  if (action === 'show' && id) {
    const { session } = await request(connection, CliSessionDocument, { id, first: first ?? 100 });
    if (!session) throw new CliError(`no session ${id}`);
    const { messages, turns, ...fields } = session;
    const lastTurn = turns.edges[0]?.node;
    const record = { ...fields, lastTurn: lastTurn ? `${lastTurn.id} ${lastTurn.status}` : null, messageCount: messages.totalCount };
    if (!process.stdout.isTTY) {
      process.stdout.write(`${JSON.stringify({ ...record, messages: messages.edges.map((e) => e.node) })}\n`);
      return 0;
    }
    printRecord(process.stdout, record);
    for (const { node } of messages.edges) {
      const who = node.type === 'assistant' && node.agentName ? `assistant (${node.agentName})` : node.toolName ? `${node.type} ${node.toolName}` : node.type;
      process.stdout.write(`\n#${node.seq} ${who}\n${node.type === 'user' || node.type === 'assistant' ? (node.content ?? '') : cell(node.content, 400)}\n`);
    }
    return 0;
  }
  throw new CliError(`sessions: expected list or show <id>\n\n${SESSIONS_USAGE}`);
}
