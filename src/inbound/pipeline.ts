import type { InboundEmail, Job, Prisma } from '../db/generated/client.js';
import { runDetached } from '../engine/detached-run.js';
import type { EngineDeps } from '../engine/engine-deps.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { JobHandler } from '../jobs/job-worker.js';
import { emailEvent, emailGivenUp } from './email-events.js';
import { inboxContext } from './inbox-context.js';
import { CLASSIFY_JOB, DRAFT_JOB } from './intake.js';
import { preprocess } from './agent-process.js';

export type PipelineDeps = Pick<EngineDeps, 'prisma' | 'agents' | 'models' | 'tools' | 'logger' | 'settings'> & {
  queue: JobQueue;
  classifierAgent: string;
  drafterAgent: string;
};

interface Classification {
  category: string;
  priority: string;
  needs_reply: boolean;
  summary: string;
}

const emailOf = (deps: PipelineDeps, job: Job) => deps.prisma.inboundEmail.findUniqueOrThrow({ where: { id: (job.payload as { emailId: string }).emailId } });

/**
 * The pipeline's `classify` job: the classifier agent's structured classification is stored on
 * the email, then `draft` is queued when the email needs a reply (else the email is done). A
 * classification already stored (a retried job) is not asked for again.
 */
function classifyHandler(deps: PipelineDeps) {
  return async (job: Job, signal: AbortSignal) => {
    const email = await emailOf(deps, job);
    let classification = email.classification as Classification | null;
    if (!classification) {
      await emailEvent(deps.prisma, email.id, 'job_started', { job: CLASSIFY_JOB, attempt: job.attempts });
      await deps.prisma.inboundEmail.update({ where: { id: email.id }, data: { status: 'PROCESSING' } });
      const ctx = inboxContext(email.tenantId);
      const agent = await deps.agents.load(ctx, deps.classifierAgent);
      const { output } = await runDetached(deps, { agent, ctx, content: emailText(email), jobId: job.id, signal, callType: 'classify' });
      classification = output as unknown as Classification;
      await deps.prisma.inboundEmail.update({ where: { id: email.id }, data: { classification: output as Prisma.InputJsonObject } });
      await emailEvent(deps.prisma, email.id, 'classified', output as Prisma.InputJsonObject);
    }
    await emailEvent(deps.prisma, email.id, 'job_finished', { job: CLASSIFY_JOB });
    if (classification.needs_reply) {
      await deps.queue.enqueue({
        kind: DRAFT_JOB,
        tenantId: email.tenantId,
        userId: null,
        payload: { emailId: email.id },
        dedupeKey: `${DRAFT_JOB}:${email.id}`,
      });
    } else {
      await deps.prisma.inboundEmail.update({ where: { id: email.id }, data: { status: 'DONE' } });
    }
    return classification;
  };
}

/** The pipeline's `draft` job: the drafting agent's reply is stored as a draft for a person to review. */
function draftHandler(deps: PipelineDeps) {
  return async (job: Job, signal: AbortSignal) => {
    const email = await emailOf(deps, job);
    const existing = await deps.prisma.emailDraft.findFirst({ where: { emailId: email.id, author: deps.drafterAgent } });
    if (existing) return { draftId: existing.id };
    await emailEvent(deps.prisma, email.id, 'job_started', { job: DRAFT_JOB, attempt: job.attempts });
    const ctx = inboxContext(email.tenantId);
    const agent = await deps.agents.load(ctx, deps.drafterAgent);
    const content = `${emailText(email)}\n\nClassification: ${JSON.stringify(email.classification)}`;
    const { output } = await runDetached(deps, { agent, ctx, content, jobId: job.id, signal, callType: 'draft' });
    const reply = output as { subject: string; body: string };
    const draft = await deps.prisma.$transaction(async (tx) => {
      const created = await tx.emailDraft.create({
        data: { emailId: email.id, to: email.fromAddress, subject: reply.subject, body: reply.body, author: deps.drafterAgent },
      });
      await emailEvent(tx, email.id, 'drafted', { draftId: created.id, author: deps.drafterAgent });
      await tx.inboundEmail.update({ where: { id: email.id }, data: { status: 'DONE' } });
      await emailEvent(tx, email.id, 'job_finished', { job: DRAFT_JOB });
      return created;
    });
    return { draftId: draft.id };
  };
}

/** The pipeline's two jobs, by kind. */
export function pipelineHandlers(deps: PipelineDeps): Record<string, JobHandler> {
  const onGiveUp = emailGivenUp(deps.prisma);
  return { [CLASSIFY_JOB]: Object.assign(classifyHandler(deps), { onGiveUp }), [DRAFT_JOB]: Object.assign(draftHandler(deps), { onGiveUp }) };
}

/** The email as the pipeline's agents read it. */
function emailText(email: InboundEmail): string {
  return preprocess(email, undefined).content;
}
