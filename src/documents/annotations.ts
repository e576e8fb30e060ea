import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { requireIdentity, visibleTo } from '../auth/scope.js';
import type { Annotation, PrismaClient } from '../db/generated/client.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { parseInput } from '../validation.js';
import { getCorpus, requireInCorpus } from './corpora.js';
import { documentText, pageAt, type DocumentText } from './document-text.js';
import { getDocument } from './documents.js';

const MAX_SPANS = 500;
const label = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const span = z.object({ start: z.number().int().min(0, 'must be at least 0'), end: z.number().int() });
const spansInput = z.object({ label, spans: z.array(span).min(1, 'must hold at least one span').max(MAX_SPANS) });
const exactInput = z.object({
  label,
  strings: z.array(z.string().min(1, 'must not be empty').max(2000, 'must be at most 2000 characters')).min(1).max(100),
});

/** Where annotations live: a document, within a corpus or none. */
export interface AnnotationScope {
  documentId: string;
  corpusId: string | null;
}

interface Span {
  start: number;
  end: number;
}

/** The annotations the caller can see on a document: within one corpus (or all), of one label (or all). */
export async function listAnnotations(
  prisma: PrismaClient,
  ctx: AgentContext,
  documentId: string,
  filter: { corpusId?: string | null; label?: string | null } = {},
): Promise<Annotation[]> {
  await getDocument(prisma, ctx, documentId);
  if (filter.corpusId) await getCorpus(prisma, ctx, filter.corpusId);
  return prisma.annotation.findMany({
    where: { documentId, ...visibleTo(ctx), ...(filter.corpusId ? { corpusId: filter.corpusId } : {}), ...(filter.label ? { label: filter.label } : {}) },
    orderBy: [{ start: 'asc' }, { id: 'asc' }],
  });
}

/** Labels character spans of the document's text. Out-of-range, empty or overlapping spans (with each other or an annotation of the same label) are refused, and nothing is written. */
export async function addAnnotations(prisma: PrismaClient, ctx: AgentContext, scope: AnnotationScope, raw: z.input<typeof spansInput>): Promise<Annotation[]> {
  const input = parseInput(spansInput, raw, ['input']);
  const text = await checkedText(prisma, ctx, scope);
  input.spans.forEach((s, i) => {
    if (s.end <= s.start || s.end > text.text.length) {
      refuse(['input', 'spans', i], `span ${s.start}–${s.end} is not within the document's ${text.text.length} characters (end after start)`);
    }
  });
  return write(prisma, ctx, scope, input.label, input.spans, text);
}

/** Labels every occurrence of each exact string in the document's text; a string that does not occur is refused, and nothing is written. */
export async function addExactStringAnnotations(
  prisma: PrismaClient,
  ctx: AgentContext,
  scope: AnnotationScope,
  raw: z.input<typeof exactInput>,
): Promise<Annotation[]> {
  const input = parseInput(exactInput, raw, ['input']);
  const text = await checkedText(prisma, ctx, scope);
  const spans = [...new Set(input.strings)].flatMap((needle, i) => {
    const found: Span[] = [];
    for (let at = text.text.indexOf(needle); at !== -1; at = text.text.indexOf(needle, at + needle.length)) found.push({ start: at, end: at + needle.length });
    if (!found.length) refuse(['input', 'strings', i], `${JSON.stringify(needle.slice(0, 80))} does not occur in the document`);
    return found;
  });
  return write(prisma, ctx, scope, input.label, spans, text);
}

/** Copies annotations (of the caller's, on the scope's document) under a new label. */
export async function duplicateAnnotations(
  prisma: PrismaClient,
  ctx: AgentContext,
  scope: AnnotationScope,
  raw: { annotationIds: string[]; newLabel: string },
): Promise<Annotation[]> {
  const input = parseInput(z.object({ annotationIds: z.array(z.string().uuid('must be an annotation id')).min(1).max(MAX_SPANS), newLabel: label }), raw, [
    'input',
  ]);
  const text = await checkedText(prisma, ctx, scope);
  const sources = await prisma.annotation.findMany({ where: { id: { in: input.annotationIds }, ...scope, ...visibleTo(ctx) } });
  const missing = input.annotationIds.find((id) => !sources.some((a) => a.id === id));
  if (missing) throw new NotFoundError('Annotation', missing);
  return write(prisma, ctx, scope, input.newLabel, sources, text);
}

async function checkedText(prisma: PrismaClient, ctx: AgentContext, scope: AnnotationScope): Promise<DocumentText> {
  requireIdentity(ctx, 'annotate documents');
  const document = await getDocument(prisma, ctx, scope.documentId);
  if (scope.corpusId) {
    await getCorpus(prisma, ctx, scope.corpusId);
    await requireInCorpus(prisma, scope.corpusId, [scope.documentId]);
  }
  return documentText(prisma, document);
}

async function write(prisma: PrismaClient, ctx: AgentContext, scope: AnnotationScope, name: string, spans: Span[], text: DocumentText): Promise<Annotation[]> {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  sorted.forEach((s, i) => {
    const next = sorted[i + 1];
    if (next && next.start < s.end) refuse(['input'], `spans ${s.start}–${s.end} and ${next.start}–${next.end} overlap`);
  });
  const existing = await prisma.annotation.findFirst({
    where: { ...scope, label: name, ...visibleTo(ctx), OR: sorted.map((s) => ({ start: { lt: s.end }, end: { gt: s.start } })) },
  });
  if (existing)
    refuse(['input'], `span ${existing.start}–${existing.end} is already labelled ${JSON.stringify(name)}: annotations of one label do not overlap`);
  return prisma.annotation.createManyAndReturn({
    data: sorted.map((s) => ({
      ...scope,
      label: name,
      start: s.start,
      end: s.end,
      page: pageAt(text, s.start),
      text: text.text.slice(s.start, s.end),
      tenantId: ctx.tenantId,
      userId: ctx.userId,
    })),
  });
}

function refuse(path: (string | number)[], message: string): never {
  throw new ValidationError(`${path.join('.')}: ${message}`, [{ path, message }]);
}
