import { agentsCommand, AGENTS_USAGE } from './agents.js';
import { approvalsCommand, APPROVALS_USAGE } from './approvals.js';
import { chatCommand, CHAT_USAGE } from './chat.js';
import { CliError } from './client.js';
import { corpusCommand, CORPUS_USAGE, documentsCommand, DOCUMENTS_USAGE } from './documents.js';
import { intakeCommand, INTAKE_USAGE } from './intake.js';
import { datasetsCommand, DATASETS_USAGE } from './datasets.js';
import { queryCommand, QUERY_USAGE } from './query.js';
import { regressCommand, REGRESS_USAGE } from './regress.js';
import { replayCommand, REPLAY_USAGE } from './replay.js';
import { sessionsCommand, SESSIONS_USAGE } from './sessions.js';
import { usageCommand, USAGE_USAGE } from './usage.js';

const COMMANDS: Record<string, { run: (args: string[]) => Promise<number>; usage: string }> = {
  chat: { run: chatCommand, usage: CHAT_USAGE },
  query: { run: queryCommand, usage: QUERY_USAGE },
  agents: { run: agentsCommand, usage: AGENTS_USAGE },
  sessions: { run: sessionsCommand, usage: SESSIONS_USAGE },
  approvals: { run: approvalsCommand, usage: APPROVALS_USAGE },
  replay: { run: replayCommand, usage: REPLAY_USAGE },
  documents: { run: documentsCommand, usage: DOCUMENTS_USAGE },
  corpus: { run: corpusCommand, usage: CORPUS_USAGE },
  intake: { run: intakeCommand, usage: INTAKE_USAGE },
  datasets: { run: datasetsCommand, usage: DATASETS_USAGE },
  regress: { run: regressCommand, usage: REGRESS_USAGE },
  usage: { run: usageCommand, usage: USAGE_USAGE },
};

const CONNECTION_USAGE = `Every client command speaks GraphQL to a running server:
  --url U       the server or its GraphQL endpoint (default REMGRAPH_URL, else http://127.0.0.1:$PORT/graphql, PORT 4000 unless set)
  --token T     a JWT sent as Authorization: Bearer (default REMGRAPH_TOKEN); without one,
  --user U      X-User-Id (default REMGRAPH_USER, else local-user, as in GraphiQL)
  --tenant T    X-Tenant-Id (default REMGRAPH_TENANT, else the server's DEFAULT_TENANT)`;

/** 128 + SIGPIPE (13): what a shell reports for a command stopped by a closed pipe. */
const EXIT_BROKEN_PIPE = 141;

/** Whether `remgraph <command>` is one of the commands that talk to a server. */
export function isClientCommand(command: string): boolean {
  return Object.hasOwn(COMMANDS, command);
}

/** Runs a client command; its expected failures are one line on stderr and exit code 1 (2 for bad usage). */
export async function runClientCommand(command: string, args: string[]): Promise<number> {
  const { run, usage } = COMMANDS[command]!;
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage}\n\n${CONNECTION_USAGE}\n`);
    return 0;
  }
  // A reader that stops early (`remgraph chat | head -1`) closes the pipe. Node ignores SIGPIPE and
  // fails the next write instead; the command ends there, quietly and with the shell's status for a
  // command a closed pipe stopped, as `cat` or `yes` would.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(EXIT_BROKEN_PIPE);
  });
  try {
    return await run(args);
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`remgraph: ${error.message}\n`);
      return 1;
    }
    // node:util parseArgs: an unknown or malformed option.
    if ((error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`remgraph ${command}: ${(error as Error).message}\n\n${usage}\n\n${CONNECTION_USAGE}\n`);
      return 2;
    }
    throw error;
  }
}
