import type { InboundEmail, Job, PrismaClient } from '../db/generated/client.js';
import { isTerminal } from '../events/turn-status.js';
import { JobReleased, type JobHandler } from '../jobs/job-worker.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { PREPROCESSORS, type Preprocessed } from '../routing/preprocessors.js';
import type { RoutingRule } from '../routing/routing-file.js';
import type { TurnService } from '../turns/turn-service.js';
import { emailEvent, emailGivenUp } from './email-events.js';
import { inboxContext } from './inbox-context.js';
import { deliveryUnknown } from './reply-once.js';
import { AGENT_PROCESS_JOB, routingContent, routingMetadata } from './intake.js';

export interface AgentProcessDeps {
  prisma: PrismaClient;
  turns: Pick<TurnService, 'sendMessage' | 'regenerate'>;
  rules: readonly RoutingRule[];
  /** How often the job looks at its turn while it runs. */
  pollMs?: number;
}

/** The message key naming the inbound email a turn works on (how a resumed job finds the turn it started). */
const EMAIL_KEY = 'inbound_email_id';

/**
 * The `agent_process` job: the profile works the preprocessed email as a turn of the shared inbox,
 * in the session of the email's thread, and the job follows the turn until it ends or waits for a
 * person (send_reply's approval); a decision queues the job again (`afterDecision`) to follow the
 * rest. A job started again (a retry, a restart) follows the turn it already started; a turn its
 * server stopped running (INTERRUPTED: killed, crashed, or shut down) is answered again in a new
 * turn of the same session, so the email is worked to its end once. How often that may happen is
 * bounded by the job's attempts (JOB_MAX_ATTEMPTS, see JobWorker).
 */
export function agentProcessHandler(deps: AgentProcessDeps): JobHandler {
  const handler = async (job: Job, signal: AbortSignal) => {
    const { prisma } = deps;
    const email = await prisma.inboundEmail.findUniqueOrThrow({ where: { id: (job.payload as { emailId: string }).emailId } });
    if (email.status === 'DONE' || email.status === 'FAILED') return { status: email.status };
    await emailEvent(prisma, email.id, 'job_started', { job: AGENT_PROCESS_JOB, attempt: job.attempts });
    let turnId = email.turnId ?? (await startedTurn(prisma, email)) ?? (await start(deps, email));
    let turn = await untilSettled(prisma, turnId, signal, deps.pollMs ?? 200);
    while (turn.status === 'INTERRUPTED') {
      turnId = await answerAgain(deps, email.id, turnId);
      turn = await untilSettled(prisma, turnId, signal, deps.pollMs ?? 200);
    }
    const current = await prisma.inboundEmail.findUniqueOrThrow({ where: { id: email.id } });
    const status = await settledStatus(prisma, email.id, turnId, turn, current.status);
    // Conditional: a person who resolved the email meanwhile has the last word.
    await prisma.inboundEmail.updateMany({ where: { id: email.id, status: current.status }, data: { status } });
    await emailEvent(prisma, email.id, 'job_finished', { job: AGENT_PROCESS_JOB, turnId, turnStatus: turn.status });
    return { turnId, turnStatus: turn.status, status };
  };
  return Object.assign(handler, { onGiveUp: emailGivenUp(deps.prisma) });
}

/** The email's status once its turn settled, recording what a person is asked or what failed. */
async function settledStatus(
  prisma: PrismaClient,
  emailId: string,
  turnId: string,
  turn: { status: string; sessionId: string },
  current: InboundEmail['status'],
): Promise<InboundEmail['status']> {
  if (turn.status === 'AWAITING_APPROVAL') {
    const pending = await prisma.approval.findMany({ where: { sessionId: turn.sessionId, status: 'PENDING' }, orderBy: { createdAt: 'asc' } });
    for (const approval of pending) await emailEvent(prisma, emailId, 'approval_asked', { approvalId: approval.id, tool: approval.toolName });
    return 'AWAITING_APPROVAL';
  }
  if (turn.status === 'COMPLETED' || turn.status === 'MAX_ITERATIONS') return current === 'ESCALATED' ? 'ESCALATED' : 'DONE';
  await emailEvent(prisma, emailId, 'failed', { turnId, turnStatus: turn.status });
  return 'FAILED';
}

/** After a person decided one of a turn's approvals: follow the email's turn again. */
export async function followAfterDecision(prisma: PrismaClient, queue: JobQueue, rootTurnId: string): Promise<void> {
  const email = await prisma.inboundEmail.findFirst({ where: { turnId: rootTurnId } });
  if (!email) return;
  await queue.enqueue({
    kind: AGENT_PROCESS_JOB,
    tenantId: email.tenantId,
    userId: null,
    payload: { emailId: email.id },
    dedupeKey: `${AGENT_PROCESS_JOB}:${email.id}`,
  });
}

/** A new turn answering the interrupted turn's message (the email) again; the email follows it from now on. A reply the stopped turn was sending is a person's to check. */
async function answerAgain(deps: AgentProcessDeps, emailId: string, interrupted: string): Promise<string> {
  await deliveryUnknown(deps.prisma, emailId);
  const email = await deps.prisma.inboundEmail.findUniqueOrThrow({ where: { id: emailId } });
  const { turn } = await deps.turns.regenerate(inboxContext(email.tenantId), interrupted);
  await deps.prisma.inboundEmail.update({ where: { id: emailId }, data: { turnId: turn.id } });
  await emailEvent(deps.prisma, emailId, 'resumed', { interruptedTurnId: interrupted, turnId: turn.id });
  return turn.id;
}

/** The turn an earlier run of the job started, if it died before storing it on the email. */
async function startedTurn(prisma: PrismaClient, email: InboundEmail): Promise<string | null> {
  const message = await prisma.message.findFirst({
    where: { tenantId: email.tenantId, metadata: { path: [EMAIL_KEY], equals: email.id } },
    select: { turnId: true, sessionId: true },
  });
  if (!message?.turnId) return null;
  await prisma.inboundEmail.update({ where: { id: email.id }, data: { turnId: message.turnId, sessionId: message.sessionId, status: 'PROCESSING' } });
  return message.turnId;
}

async function start(deps: AgentProcessDeps, email: InboundEmail): Promise<string> {
  const { prisma } = deps;
  const rule = deps.rules.find((r) => r.name === email.rule);
  const pre = preprocess(email, rule);
  const thread = await prisma.inboundEmail.findFirst({
    where: { tenantId: email.tenantId, threadId: email.threadId, sessionId: { not: null }, id: { not: email.id } },
    orderBy: { createdAt: 'desc' },
    select: { sessionId: true },
  });
  const { turn, session } = await deps.turns.sendMessage(inboxContext(email.tenantId), {
    sessionId: thread?.sessionId ?? null,
    content: pre.content,
    agent: email.profile,
    metadata: { [EMAIL_KEY]: email.id, sender: email.fromAddress, subject: email.subject, ...pre.extracted },
  });
  await prisma.inboundEmail.update({ where: { id: email.id }, data: { sessionId: session.id, turnId: turn.id, status: 'PROCESSING' } });
  return turn.id;
}

/**
 * What the agent reads: the email through its rule's preprocessor; a rule that names none reads it
 * as `crisp` does (a Crisp forward becomes the seed's prompt, other mail a From/Subject summary).
 */
export function preprocess(email: Pick<InboundEmail, 'fromAddress' | 'subject' | 'headers' | 'text'>, rule: RoutingRule | undefined): Preprocessed {
  const message = { ...email, headers: email.headers as Record<string, string> };
  const name = !rule || rule.preprocessor === 'passthrough' ? 'crisp' : rule.preprocessor;
  return PREPROCESSORS[name](routingContent(message), routingMetadata(message));
}

async function untilSettled(prisma: PrismaClient, turnId: string, signal: AbortSignal, pollMs: number) {
  for (;;) {
    const turn = await prisma.turn.findUniqueOrThrow({ where: { id: turnId }, select: { status: true, sessionId: true } });
    if (isTerminal(turn.status)) return turn;
    // Waiting means waiting for a person; an approval just decided is a turn about to run on.
    if (turn.status === 'AWAITING_APPROVAL' && (await prisma.approval.count({ where: { sessionId: turn.sessionId, status: 'PENDING' } }))) return turn;
    if (signal.aborted) throw new JobReleased();
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
