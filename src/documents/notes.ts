import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy, requireIdentity, visibleTo } from '../auth/scope.js';
import type { DocumentNote, NoteRevision, PrismaClient } from '../db/generated/client.js';
import { NotFoundError } from '../errors.js';
import { parseInput } from '../validation.js';
import { getCorpus, requireInCorpus, type Authorship } from './corpora.js';
import { getDocument } from './documents.js';

/** Longest note, in characters: a longer one is refused whole. */
export const MAX_NOTE = 100_000;

const title = z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters');
const content = z.string().min(1, 'must not be empty').max(MAX_NOTE, `must be at most ${MAX_NOTE} characters`);
const addInput = z.object({ title, content });
const updateInput = z.object({ title: title.nullish(), content });

/** Where notes live: a document within a corpus. */
export interface NoteScope {
  documentId: string;
  corpusId: string;
}

/** The document and corpus exist for the caller, and the document is in the corpus. */
async function checkScope(prisma: PrismaClient, ctx: AgentContext, scope: NoteScope): Promise<void> {
  await Promise.all([getDocument(prisma, ctx, scope.documentId), getCorpus(prisma, ctx, scope.corpusId)]);
  await requireInCorpus(prisma, scope.corpusId, [scope.documentId]);
}

/** The notes the caller can see on a document within a corpus, oldest first. */
export async function listNotes(prisma: PrismaClient, ctx: AgentContext, scope: NoteScope): Promise<DocumentNote[]> {
  await checkScope(prisma, ctx, scope);
  return prisma.documentNote.findMany({ where: { ...scope, ...visibleTo(ctx) }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** Notes of a document within a corpus whose title or content holds the keyword (case-insensitive). */
export async function searchNotes(prisma: PrismaClient, ctx: AgentContext, scope: NoteScope, keyword: string): Promise<DocumentNote[]> {
  const text = parseInput(z.string().trim().min(1, 'must not be empty').max(500), keyword, ['keyword']);
  await checkScope(prisma, ctx, scope);
  return prisma.documentNote.findMany({
    where: {
      ...scope,
      ...visibleTo(ctx),
      AND: [{ OR: [{ title: { contains: text, mode: 'insensitive' } }, { content: { contains: text, mode: 'insensitive' } }] }],
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** A note the caller can see (within the scope, when given); NOT_FOUND otherwise. */
export async function getNote(prisma: PrismaClient, ctx: AgentContext, id: string, scope?: NoteScope): Promise<DocumentNote> {
  const note = await prisma.documentNote.findFirst({ where: { id, ...scope, ...visibleTo(ctx) } });
  if (!note) throw new NotFoundError('Note', id);
  return note;
}

/** A new note of the caller's on a document within a corpus: its revision 1. */
export async function addNote(
  prisma: PrismaClient,
  ctx: AgentContext,
  scope: NoteScope,
  raw: z.input<typeof addInput>,
  by: Authorship = {},
): Promise<DocumentNote> {
  const input = parseInput(addInput, raw, ['input']);
  requireIdentity(ctx, 'write notes');
  await checkScope(prisma, ctx, scope);
  return prisma.documentNote.create({
    data: {
      ...scope,
      title: input.title,
      content: input.content,
      tenantId: ctx.tenantId,
      userId: ctx.userId,
      revisions: { create: { version: 1, title: input.title, content: input.content, authorId: ctx.userId, agentName: by.agentName ?? null } },
    },
  });
}

/** Changes the caller's note: a new revision (the title stays unless given). */
export async function updateNote(
  prisma: PrismaClient,
  ctx: AgentContext,
  id: string,
  raw: z.input<typeof updateInput>,
  by: Authorship & { scope?: NoteScope } = {},
): Promise<DocumentNote> {
  const input = parseInput(updateInput, raw, ['input']);
  const owned = await prisma.documentNote.findFirst({ where: { id, ...by.scope, ...ownedBy(ctx) } });
  if (!owned) throw new NotFoundError('Note', id);
  return prisma.$transaction(async (tx) => {
    // Updating the row first locks it: concurrent updates number their revisions one after the other.
    const note = await tx.documentNote.update({ where: { id }, data: { content: input.content, ...(input.title ? { title: input.title } : {}) } });
    const last = await tx.noteRevision.aggregate({ where: { noteId: id }, _max: { version: true } });
    await tx.noteRevision.create({
      data: {
        noteId: id,
        version: (last._max.version ?? 0) + 1,
        title: note.title,
        content: note.content,
        authorId: ctx.userId,
        agentName: by.agentName ?? null,
      },
    });
    return note;
  });
}

export function noteRevisions(prisma: PrismaClient, noteId: string): Promise<NoteRevision[]> {
  return prisma.noteRevision.findMany({ where: { noteId }, orderBy: { version: 'asc' } });
}
