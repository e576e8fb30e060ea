import type { Prisma, PrismaClient } from '../db/generated/client.js';

/** What happens to an inbound email, in the order it can happen. */
export type EmailEventKind =
  'received' | 'routed' | 'job_started' | 'resumed' | 'classified' | 'drafted' | 'approval_asked' | 'sent' | 'escalated' | 'job_finished' | 'failed';

type Client = Pick<PrismaClient, 'emailEvent'> | Prisma.TransactionClient;

/** Appends one event to an email's trail (its id orders the trail). */
export async function emailEvent(prisma: Client, emailId: string, kind: EmailEventKind, detail: Prisma.InputJsonObject = {}): Promise<void> {
  await prisma.emailEvent.create({ data: { emailId, kind, detail } });
}
