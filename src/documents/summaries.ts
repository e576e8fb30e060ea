import { createTwoFilesPatch } from 'diff';
import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { requireIdentity, visibleTo } from '../auth/scope.js';
import type { PrismaClient, SummaryVersion } from '../db/generated/client.js';
import { isUniqueViolation } from '../db/sql-state.js';
import { NotFoundError } from '../errors.js';
import { parseInput } from '../validation.js';
import type { Authorship } from './corpora.js';
import { getDocument } from './documents.js';

/** Longest summary (markdown), in characters. */
export const MAX_SUMMARY = 100_000;
const markdown = z.string().trim().min(1, 'must not be empty').max(MAX_SUMMARY, `must be at most ${MAX_SUMMARY} characters`);
/** Concurrent writers of one document's summary each take the next number; a clash is retried. */
const ATTEMPTS = 5;

/** The versions of a document's summary the caller can see, oldest first. */
export async function summaryVersions(prisma: PrismaClient, ctx: AgentContext, documentId: string): Promise<SummaryVersion[]> {
  await getDocument(prisma, ctx, documentId);
  return prisma.summaryVersion.findMany({ where: { documentId, ...visibleTo(ctx) }, orderBy: { version: 'asc' } });
}

/** The latest version of a document's summary the caller can see; null when there is none. */
export async function latestSummary(prisma: PrismaClient, ctx: AgentContext, documentId: string): Promise<SummaryVersion | null> {
  await getDocument(prisma, ctx, documentId);
  return prisma.summaryVersion.findFirst({ where: { documentId, ...visibleTo(ctx) }, orderBy: { version: 'desc' } });
}

/** A new version of a document's summary, by the caller (and the agent, from a tool). */
export async function updateSummary(prisma: PrismaClient, ctx: AgentContext, documentId: string, raw: string, by: Authorship = {}): Promise<SummaryVersion> {
  const content = parseInput(markdown, raw, ['markdown']);
  requireIdentity(ctx, 'write summaries');
  await getDocument(prisma, ctx, documentId);
  for (let attempt = 1; ; attempt++) {
    const last = await prisma.summaryVersion.aggregate({ where: { documentId }, _max: { version: true } });
    try {
      return await prisma.summaryVersion.create({
        data: {
          documentId,
          version: (last._max.version ?? 0) + 1,
          content,
          authorId: ctx.userId,
          agentName: by.agentName ?? null,
          tenantId: ctx.tenantId,
          userId: ctx.userId,
        },
      });
    } catch (error) {
      if (!isUniqueViolation(error) || attempt === ATTEMPTS) throw error;
    }
  }
}

/** The unified diff from one version of a document's summary to another; NOT_FOUND for a version the caller cannot see. */
export async function summaryDiff(prisma: PrismaClient, ctx: AgentContext, documentId: string, from: number, to: number): Promise<string> {
  const versions = await summaryVersions(prisma, ctx, documentId);
  const pick = (n: number) => {
    const found = versions.find((v) => v.version === n);
    if (!found) throw new NotFoundError('Summary version', String(n));
    return found;
  };
  const [a, b] = [pick(from), pick(to)];
  return createTwoFilesPatch(`summary-v${a.version}.md`, `summary-v${b.version}.md`, withNewline(a.content), withNewline(b.content));
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
