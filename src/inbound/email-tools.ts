import { z } from 'zod';
import type { InboundEmail } from '../db/generated/client.js';
import { ValidationError } from '../errors.js';
import { defineTool } from '../tools/define-tool.js';
import type { ToolContext } from '../tools/tool.js';
import { emailEvent } from './email-events.js';
import type { Mailer } from './mailer.js';
import { replyOnce } from './reply-once.js';

const reply = z.object({
  to: z.string().trim().email().max(320).describe('Address of the person to answer'),
  subject: z.string().trim().min(1).max(500),
  body: z.string().trim().min(1).max(50_000).describe('The reply as plain text'),
});

/**
 * The inbound email a tool call works on: the one whose turn this is (its user message names it),
 * else the newest email of the session's thread. Outside an email's session the tools refuse.
 */
async function emailOf(ctx: ToolContext): Promise<InboundEmail> {
  const { prisma } = ctx;
  const asked = ctx.turnId ? await prisma.message.findFirst({ where: { turnId: ctx.turnId, type: 'user' }, select: { metadata: true } }) : null;
  const id = (asked?.metadata as { inbound_email_id?: string } | undefined)?.inbound_email_id;
  const email = id
    ? await prisma.inboundEmail.findUnique({ where: { id } })
    : ctx.sessionId
      ? await prisma.inboundEmail.findFirst({ where: { sessionId: ctx.sessionId }, orderBy: { createdAt: 'desc' } })
      : null;
  if (!email || email.tenantId !== ctx.agent.tenantId) {
    throw new ValidationError('This conversation is not about an inbound email', [{ path: [], message: 'no inbound email' }]);
  }
  return email;
}

/** create_draft, send_reply and escalate: the routing seed's tools for working an inbound email. */
export function emailTools(mailer: Mailer) {
  // One draft per email: a turn answered again after a restart (or an agent revising itself)
  // rewrites the email's unsent draft instead of adding a second one.
  const createDraft = defineTool({
    name: 'create_draft',
    description: 'Write a reply to the email as a draft for a person to review and send (nothing is sent). Writing again replaces the unsent draft.',
    input: reply,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async handler(args, ctx) {
      const email = await emailOf(ctx);
      return ctx.prisma.$transaction(async (tx) => {
        const unsent = await tx.emailDraft.findFirst({ where: { emailId: email.id, status: 'PENDING' }, orderBy: { createdAt: 'asc' } });
        const draft = unsent
          ? await tx.emailDraft.update({ where: { id: unsent.id }, data: { ...args, author: ctx.agentName } })
          : await tx.emailDraft.create({ data: { emailId: email.id, ...args, author: ctx.agentName } });
        await emailEvent(tx, email.id, 'drafted', { draftId: draft.id, author: ctx.agentName, ...(unsent ? { replaced: true } : {}) });
        return { status: unsent ? 'updated' : 'created', draftId: draft.id };
      });
    },
  });
  // One reply per email: a send_reply approved again (the turn answered anew after a restart), at
  // the same time as another, or after a person sent a draft does not mail the sender a second time.
  const sendReply = defineTool({
    name: 'send_reply',
    description:
      'Send a reply to the email now, threaded on it (In-Reply-To, References). A person approves each reply before it goes out; an email is answered once.',
    input: reply,
    requiresApproval: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    async handler(args, ctx) {
      const outcome = await replyOnce({ prisma: ctx.prisma, mailer }, await emailOf(ctx), args);
      return { status: outcome.status, messageId: outcome.reply.messageId };
    },
  });
  const escalate = defineTool({
    name: 'escalate',
    description: 'Put the email in front of a person (it appears in the inbox as escalated), with the reason.',
    input: z.object({ reason: z.string().trim().min(1).max(2000).describe('Why a person must look at it') }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async handler({ reason }, ctx) {
      const email = await emailOf(ctx);
      await ctx.prisma.$transaction(async (tx) => {
        await tx.inboundEmail.update({ where: { id: email.id }, data: { status: 'ESCALATED' } });
        await emailEvent(tx, email.id, 'escalated', { reason });
      });
      return { status: 'escalated' };
    },
  });
  return [createDraft, sendReply, escalate];
}
