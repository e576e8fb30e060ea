import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy, requireIdentity, visibleTo } from '../auth/scope.js';
import type { Corpus, CorpusDescriptionVersion, PrismaClient } from '../db/generated/client.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { parseInput } from '../validation.js';
import { getDocuments } from './documents.js';

/** Longest corpus description (markdown), in characters. */
export const MAX_DESCRIPTION = 50_000;
const MAX_DOCUMENTS_PER_CALL = 1000;

const name = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const description = z.string().max(MAX_DESCRIPTION, `must be at most ${MAX_DESCRIPTION} characters`);
const createInput = z.object({ name, description: description.nullish() });
const documentIds = z
  .array(z.string())
  .min(1, 'must name at least one document')
  .max(MAX_DOCUMENTS_PER_CALL, `must name at most ${MAX_DOCUMENTS_PER_CALL} documents`);

export type CreateCorpusInput = z.input<typeof createInput>;

/** Who wrote a version: the caller, and the agent when a tool did. */
export interface Authorship {
  agentName?: string | null;
}

/** The corpora the caller can see: their own and the tenant's shared ones. */
export function corporaWhere(ctx: AgentContext) {
  return visibleTo(ctx);
}

/** A corpus the caller can see; NOT_FOUND otherwise. */
export async function getCorpus(prisma: PrismaClient, ctx: AgentContext, id: string): Promise<Corpus> {
  const corpus = await prisma.corpus.findFirst({ where: { id, ...visibleTo(ctx) } });
  if (!corpus) throw new NotFoundError('Corpus', id);
  return corpus;
}

/** A corpus the caller may change (their own; shared ones for admins); NOT_FOUND otherwise. */
async function ownCorpus(prisma: PrismaClient, ctx: AgentContext, id: string): Promise<Corpus> {
  const corpus = await prisma.corpus.findFirst({ where: { id, ...ownedBy(ctx) } });
  if (!corpus) throw new NotFoundError('Corpus', id);
  return corpus;
}

/** A new corpus of the caller's; a description becomes its version 1. */
export async function createCorpus(prisma: PrismaClient, ctx: AgentContext, raw: CreateCorpusInput): Promise<Corpus> {
  const input = parseInput(createInput, raw, ['input']);
  requireIdentity(ctx, 'create corpora');
  const text = input.description?.trim() ? input.description : null;
  return prisma.corpus.create({
    data: {
      name: input.name,
      description: text,
      tenantId: ctx.tenantId,
      userId: ctx.userId,
      ...(text ? { descriptionVersions: { create: { version: 1, content: text, authorId: ctx.userId } } } : {}),
    },
  });
}

/** Adds documents the caller can see to their corpus (one already in it stays as it is). All or nothing. */
export async function addDocumentsToCorpus(prisma: PrismaClient, ctx: AgentContext, corpusId: string, ids: string[]): Promise<Corpus> {
  parseInput(documentIds, ids, ['documentIds']);
  const corpus = await ownCorpus(prisma, ctx, corpusId);
  await getDocuments(prisma, ctx, ids);
  await prisma.corpusDocument.createMany({ data: [...new Set(ids)].map((documentId) => ({ corpusId, documentId })), skipDuplicates: true });
  return corpus;
}

/** Takes documents out of the caller's corpus; a document not in it is refused and nothing changes. */
export async function removeDocumentsFromCorpus(prisma: PrismaClient, ctx: AgentContext, corpusId: string, ids: string[]): Promise<Corpus> {
  parseInput(documentIds, ids, ['documentIds']);
  const corpus = await ownCorpus(prisma, ctx, corpusId);
  await requireInCorpus(prisma, corpusId, ids);
  await prisma.corpusDocument.deleteMany({ where: { corpusId, documentId: { in: ids } } });
  return corpus;
}

/** Refuses (VALIDATION_FAILED) documents that are not in the corpus. */
export async function requireInCorpus(prisma: PrismaClient, corpusId: string, ids: readonly string[]): Promise<void> {
  const unique = [...new Set(ids)];
  const members = await prisma.corpusDocument.findMany({ where: { corpusId, documentId: { in: unique } }, select: { documentId: true } });
  const outside = unique.find((id) => !members.some((m) => m.documentId === id));
  if (outside) {
    const message = `document ${outside} is not in corpus ${corpusId}`;
    throw new ValidationError(message, [{ path: ['documentIds'], message }]);
  }
}

/** Sets the caller's corpus's description: a new version, by the caller (and the agent, from a tool). */
export async function updateCorpusDescription(
  prisma: PrismaClient,
  ctx: AgentContext,
  corpusId: string,
  markdown: string,
  by: Authorship = {},
): Promise<Corpus> {
  const text = parseInput(description.trim().min(1, 'must not be empty'), markdown, ['description']);
  await ownCorpus(prisma, ctx, corpusId);
  return prisma.$transaction(async (tx) => {
    // Updating the row first locks it: concurrent updates number their versions one after the other.
    const corpus = await tx.corpus.update({ where: { id: corpusId }, data: { description: text } });
    const last = await tx.corpusDescriptionVersion.aggregate({ where: { corpusId }, _max: { version: true } });
    await tx.corpusDescriptionVersion.create({
      data: { corpusId, version: (last._max.version ?? 0) + 1, content: text, authorId: ctx.userId, agentName: by.agentName ?? null },
    });
    return corpus;
  });
}

export function descriptionVersions(prisma: PrismaClient, corpusId: string): Promise<CorpusDescriptionVersion[]> {
  return prisma.corpusDescriptionVersion.findMany({ where: { corpusId }, orderBy: { version: 'asc' } });
}

/** Deletes the caller's corpus with its memberships, notes and annotations (the documents stay). */
export async function deleteCorpus(prisma: PrismaClient, ctx: AgentContext, corpusId: string): Promise<Corpus> {
  const corpus = await ownCorpus(prisma, ctx, corpusId);
  await prisma.corpus.delete({ where: { id: corpus.id } });
  return corpus;
}
