import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { CliError, connectionFrom, connectionOptions, followTurn, request, type Connection, type TurnEvent } from './client.js';
import { CliCancelTurnDocument, CliDecideApprovalDocument, CliSendMessageDocument } from './generated/graphql.js';
import { TurnPrinter } from './turn-printer.js';

export const CHAT_USAGE = `remgraph chat [--agent A] [--session S] [--model M] [--document D] [--corpus C] [--debug] [--approve-all | --reject-all]

  On a terminal: a conversation; each line you type is a message. The answer streams as it
  arrives, with thoughts, tool calls and child agents; a gated tool call asks "approve? [y/N]" and
  a reason. Ctrl-C cancels the running turn, Ctrl-D (or Ctrl-C at the prompt) quits.
  Otherwise: all of stdin is one message; the answer goes to stdout, the rest to stderr; exits 0
  when the turn completes, 1 otherwise. Approvals are not decided without a terminal unless
  --approve-all or --reject-all says how (the turn is left waiting and the command exits 1).

  --agent A     the agent to talk to (default: the session's, else the server's default)
  --session S   continue this session (default: a new one, whose id is printed on stderr)
  --model M     provider:model for these turns (default: the agent's, else the server's)
  --document D  talk about this document (its id): its tools are offered, its title told; the
                session keeps it
  --corpus C    talk about this corpus (with --document: the document's corpus)
  --debug       each model call's exact request body (JSON, as sent to the provider) as the call
                starts, then the events of that call, each on its own line with its seq and timings
                (ms since sending, since the previous event); the answer is printed once the turn
                ends`;

type ApprovalNeeded = Extract<TurnEvent | Extract<TurnEvent, { __typename: 'ChildEvent' }>['event'], { __typename: 'ApprovalNeededEvent' }>;
type FinalStatus = Extract<TurnEvent, { __typename: 'FinalEvent' }>['status'];
/** Asks the user a question on the terminal; undefined when the question was abandoned (Ctrl-C). */
type Ask = (question: string) => Promise<string | undefined>;

interface ChatOptions {
  agent?: string;
  model?: string;
  document?: string;
  corpus?: string;
  debug: boolean;
  /** A decision for every approval, given on the command line. */
  decideAll?: boolean;
}

export async function chatCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...connectionOptions,
      agent: { type: 'string' },
      session: { type: 'string' },
      model: { type: 'string' },
      document: { type: 'string' },
      corpus: { type: 'string' },
      debug: { type: 'boolean', default: false },
      'approve-all': { type: 'boolean', default: false },
      'reject-all': { type: 'boolean', default: false },
    },
  });
  if (values['approve-all'] && values['reject-all']) throw new CliError('--approve-all and --reject-all: choose one');
  const decideAll = values['approve-all'] ? true : values['reject-all'] ? false : undefined;
  const chat = new Chat(
    connectionFrom(values),
    { agent: values.agent, model: values.model, document: values.document, corpus: values.corpus, debug: values.debug, decideAll },
    values.session,
  );
  return process.stdin.isTTY ? chat.onTerminal() : chat.overPipe();
}

/** One conversation: the session it continues (once known) and the turn running in it. */
class Chat {
  private running: string | undefined;
  private readonly color = Boolean(process.stderr.isTTY) && !process.env.NO_COLOR;

  constructor(
    private readonly connection: Connection,
    private readonly options: ChatOptions,
    private sessionId: string | undefined,
  ) {}

  async overPipe(): Promise<number> {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const content = Buffer.concat(chunks).toString('utf8').trim();
    if (!content) throw new CliError('nothing to send: stdin was empty');
    return (await this.turn(content)) === 'COMPLETED' ? 0 : 1;
  }

  async onTerminal(): Promise<number> {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    const closed = new Promise<undefined>((resolve) => rl.once('close', () => resolve(undefined)));
    let question: AbortController | undefined;
    const ask: Ask = async (text) => {
      question = new AbortController();
      try {
        return await Promise.race([rl.question(text, { signal: question.signal }), closed]);
      } catch {
        return undefined;
      } finally {
        question = undefined;
      }
    };
    rl.on('SIGINT', () => {
      if (!this.running) return rl.close();
      question?.abort();
      process.stderr.write('\n[cancelling the turn]\n');
      request(this.connection, CliCancelTurnDocument, { id: this.running }).catch((error: Error) => process.stderr.write(`remgraph: ${error.message}\n`));
    });
    process.stderr.write(`remgraph chat on ${this.connection.url}${this.sessionId ? `, session ${this.sessionId}` : ''}: type a message (Ctrl-D to quit)\n`);
    try {
      for (;;) {
        const line = await ask('› ');
        if (line === undefined) return 0;
        if (!line.trim()) continue;
        // A refused message (a busy session, a server gone for a moment) ends that turn, not the conversation.
        await this.turn(line, ask).catch((error: unknown) => {
          if (!(error instanceof CliError)) throw error;
          process.stderr.write(`remgraph: ${error.message}\n`);
        });
      }
    } finally {
      rl.close();
    }
  }

  /** Sends one message and shows its turn until it ends; returns how it ended. */
  private async turn(content: string, ask?: Ask): Promise<FinalStatus | undefined> {
    const { agent, model, document, corpus, debug } = this.options;
    const printer = new TurnPrinter({ stdout: process.stdout, stderr: process.stderr, debug: this.options.debug, color: this.color });
    const sent = (
      await request(this.connection, CliSendMessageDocument, { input: { content, sessionId: this.sessionId, agent, model, document, corpus, debug } })
    ).sendMessage;
    if (sent.__typename !== 'SendMessagePayload') throw new CliError(`${sent.code}: ${sent.message}`);
    if (!this.sessionId) process.stderr.write(`session ${sent.session.id} (continue it with --session ${sent.session.id})\n`);
    this.sessionId = sent.session.id;
    this.running = sent.turn.id;
    let status: FinalStatus | undefined;
    try {
      await followTurn(
        this.connection,
        sent.turn.id,
        async (event) => {
          printer.print(event);
          const needed = approvalIn(event);
          if (needed) await this.decide(needed, ask);
          if (event.__typename === 'FinalEvent') status = event.status;
        },
        { onReconnect: (seq) => process.stderr.write(`\n[connection lost after seq ${seq}; resuming]\n`) },
      );
    } finally {
      this.running = undefined;
    }
    return status;
  }

  private async decide(needed: ApprovalNeeded, ask: Ask | undefined): Promise<void> {
    let approve = this.options.decideAll;
    let reason: string | undefined = approve === undefined ? undefined : approve ? '--approve-all' : '--reject-all';
    if (approve === undefined) {
      if (!ask) {
        throw new CliError(
          `${needed.name} needs approval (${needed.approvalId}) and stdin is not a terminal, so nothing was decided: the turn waits.` +
            ` Decide with \`remgraph approvals decide ${needed.approvalId} --approve\` (or --reject), or chat with --approve-all / --reject-all`,
        );
      }
      const answer = await ask('approve? [y/N] ');
      if (answer === undefined) return;
      approve = /^y(es)?$/i.test(answer.trim());
      reason = (await ask('reason: '))?.trim() || undefined;
    }
    const decided = (await request(this.connection, CliDecideApprovalDocument, { id: needed.approvalId, approve, reason })).decideApproval;
    if (decided.__typename !== 'DecideApprovalSuccess') process.stderr.write(`remgraph: ${decided.code}: ${decided.message}\n`);
  }
}

function approvalIn(event: TurnEvent): ApprovalNeeded | undefined {
  const step = event.__typename === 'ChildEvent' ? event.event : event;
  return step.__typename === 'ApprovalNeededEvent' ? step : undefined;
}
