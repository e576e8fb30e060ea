import type { InboundEmail, PrismaClient } from '../db/generated/client.js';
import { isUniqueViolation } from '../db/sql-state.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { Router } from '../routing/router.js';
import { emailEvent } from './email-events.js';
import type { InboundMessage } from './inbound-message.js';

export const AGENT_PROCESS_JOB = 'agent_process';
export const CLASSIFY_JOB = 'classify';
export const DRAFT_JOB = 'draft';

export interface IntakeDeps {
  prisma: PrismaClient;
  queue: JobQueue;
  router: Pick<Router, 'match'>;
  /** INBOUND_EMAIL_TENANT. */
  tenantId: string;
}

/**
 * Stores an inbound email, routes it by the routing file's rules (the first that matches; none is
 * `pipeline`) and queues its job: `agent_process` for an agent route, `classify` for the pipeline.
 * The same Message-ID delivered again answers the stored email (`duplicate`) and queues nothing
 * new: its job is queued again only if it never started (a crash between storing and queueing).
 */
export async function intake(deps: IntakeDeps, message: InboundMessage): Promise<{ email: InboundEmail; duplicate: boolean }> {
  const { prisma, tenantId } = deps;
  const matched = deps.router.match(routingContent(message), routingMetadata(message));
  const route = matched?.rule.route ?? 'pipeline';
  const threadId = await threadOf(prisma, tenantId, message);
  let email: InboundEmail;
  let duplicate = false;
  try {
    email = await prisma.$transaction(async (tx) => {
      const created = await tx.inboundEmail.create({
        data: {
          tenantId,
          messageId: message.messageId,
          threadId,
          inReplyTo: message.inReplyTo,
          references: message.references,
          fromAddress: message.fromAddress,
          fromName: message.fromName,
          toAddress: message.toAddress,
          subject: message.subject,
          text: message.text,
          headers: message.headers,
          raw: message.raw,
          source: message.source,
          route,
          rule: matched?.rule.name ?? null,
          profile: route === 'agent' ? matched!.rule.profile : null,
        },
      });
      await emailEvent(tx, created.id, 'received', { messageId: message.messageId, from: message.fromAddress, source: message.source });
      await emailEvent(tx, created.id, 'routed', { route, rule: created.rule, profile: created.profile });
      return created;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    email = await prisma.inboundEmail.findUniqueOrThrow({ where: { tenantId_messageId: { tenantId, messageId: message.messageId } } });
    duplicate = true;
  }
  if (!duplicate || email.status === 'RECEIVED') await queueFirstJob(deps.queue, email);
  return { email, duplicate };
}

function queueFirstJob(queue: JobQueue, email: InboundEmail) {
  const kind = email.route === 'agent' ? AGENT_PROCESS_JOB : CLASSIFY_JOB;
  return queue.enqueue({ kind, tenantId: email.tenantId, userId: null, payload: { emailId: email.id }, dedupeKey: `${kind}:${email.id}` });
}

/** The thread's first Message-ID: that of a stored email this one answers, else the oldest reference, else its own. */
async function threadOf(prisma: PrismaClient, tenantId: string, message: InboundMessage): Promise<string> {
  const answered = [...(message.inReplyTo ? [message.inReplyTo] : []), ...message.references];
  if (answered.length) {
    const earlier = await prisma.inboundEmail.findFirst({ where: { tenantId, messageId: { in: answered } }, select: { threadId: true } });
    if (earlier) return earlier.threadId;
  }
  return message.references[0] ?? message.inReplyTo ?? message.messageId;
}

const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ');

/**
 * The email as the routing preprocessors read a raw message: its headers, then its decoded text
 * (a MIME message's parts and encodings are mailparser's to undo, not the preprocessors').
 */
export function routingContent(message: Pick<InboundMessage, 'fromAddress' | 'subject' | 'headers' | 'text'>): string {
  // The decoded From and Subject, not the headers' encoded words.
  const headers = { ...message.headers, from: message.fromAddress, ...(message.subject ? { subject: message.subject } : {}) };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${oneLine(value)}`);
  return `${lines.join('\r\n')}\r\n\r\n${message.text}`;
}

/** The fields a `passthrough` rule reads. */
export function routingMetadata(message: Pick<InboundMessage, 'fromAddress' | 'subject' | 'headers'>): Record<string, unknown> {
  return {
    sender: message.fromAddress,
    subject: message.subject,
    headers: message.headers,
    ...(message.headers['x-forwarded-from'] ? { forwarded_from: message.headers['x-forwarded-from'] } : {}),
  };
}
