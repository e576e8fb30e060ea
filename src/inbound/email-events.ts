import type { Job, Prisma, PrismaClient } from '../db/generated/client.js';
import type { JobError } from '../jobs/job-worker.js';

/** What happens to an inbound email, in the order it can happen. */
export type EmailEventKind =
  | 'received'
  | 'routed'
  | 'job_started'
  | 'resumed'
  | 'classified'
  | 'drafted'
  | 'approval_asked'
  | 'sent'
  | 'delivery_unknown'
  | 'escalated'
  | 'resolved'
  | 'job_finished'
  | 'failed';

type Client = Pick<PrismaClient, 'emailEvent'> | Prisma.TransactionClient;

/** Appends one event to an email's trail (its id orders the trail). */
export async function emailEvent(prisma: Client, emailId: string, kind: EmailEventKind, detail: Prisma.InputJsonObject = {}): Promise<void> {
  await prisma.emailEvent.create({ data: { emailId, kind, detail } });
}

/**
 * A job working the email was given up (JobWorker's `onGiveUp`): an email still under way is
 * FAILED, with the job's error in its trail, rather than PROCESSING for ever.
 */
export function emailGivenUp(prisma: PrismaClient) {
  return async (job: Job, error: JobError): Promise<void> => {
    const emailId = (job.payload as { emailId: string }).emailId;
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.inboundEmail.updateMany({
        where: { id: emailId, status: { in: ['RECEIVED', 'PROCESSING', 'AWAITING_APPROVAL'] } },
        data: { status: 'FAILED' },
      });
      if (count) await emailEvent(tx, emailId, 'failed', { job: job.kind, jobId: job.id, code: error.code, reason: error.message });
    });
  };
}
