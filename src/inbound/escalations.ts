import type { AgentContext } from '../auth/agent-context.js';
import type { InboundEmail, PrismaClient } from '../db/generated/client.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { inboxWhere } from './drafts.js';
import { emailEvent } from './email-events.js';

/**
 * A person has handled an escalated email (answered it from a draft, checked a reply whose delivery
 * was unknown, or decided nothing is needed): it is DONE, and its trail says who resolved it and how.
 */
export async function resolveEscalation(prisma: PrismaClient, ctx: AgentContext, id: string, note: string | null | undefined): Promise<InboundEmail> {
  const where = { id, ...inboxWhere(ctx) };
  const text = note?.trim() ?? '';
  if (text.length > 2000) throw new ValidationError('The note is longer than 2000 characters', [{ path: ['note'], message: 'at most 2000 characters' }]);
  return prisma.$transaction(async (tx) => {
    // ESCALATED → DONE once: of two people resolving at once, one does.
    const { count } = await tx.inboundEmail.updateMany({ where: { ...where, status: 'ESCALATED' }, data: { status: 'DONE' } });
    const email = await tx.inboundEmail.findFirst({ where });
    if (!email) throw new NotFoundError('InboundEmail', id);
    if (!count) throw new ValidationError(`The email is not escalated (it is ${email.status})`, [{ path: ['id'], message: `not escalated: ${email.status}` }]);
    await emailEvent(tx, id, 'resolved', { by: ctx.userId, ...(text ? { note: text } : {}) });
    return email;
  });
}
