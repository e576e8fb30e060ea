import type { AgentContext } from '../auth/agent-context.js';
import type { PrismaClient } from '../db/generated/client.js';
import { getCorpus, requireInCorpus } from './corpora.js';
import { documentTitle, getDocument } from './documents.js';
import { latestSummary } from './summaries.js';

/** What a turn is about: a document (within a corpus or none), or a corpus. */
export interface DocumentBinding {
  documentId: string | null;
  corpusId: string | null;
}

/** Summaries and descriptions up to this many characters go into the turn's context whole; longer ones are left to the tools. */
const SHORT = 2000;

/**
 * Checks a binding for the caller (NOT_FOUND for what they cannot see, VALIDATION_FAILED for a
 * document outside the corpus) and names it for the model: the document's title and summary, the
 * corpus's name and description, each when short.
 */
export async function describeBinding(prisma: PrismaClient, ctx: AgentContext, binding: DocumentBinding): Promise<string> {
  const [document, corpus] = await Promise.all([
    binding.documentId ? getDocument(prisma, ctx, binding.documentId) : null,
    binding.corpusId ? getCorpus(prisma, ctx, binding.corpusId) : null,
  ]);
  if (document && corpus) await requireInCorpus(prisma, corpus.id, [document.id]);
  const lines: string[] = [];
  if (document) {
    lines.push(`This conversation is about the document "${documentTitle(document)}" (id ${document.id}). Its tools read and change this document.`);
    const summary = (await latestSummary(prisma, ctx, document.id))?.content;
    if (summary && summary.length <= SHORT) lines.push(`Its summary:\n${summary}`);
  }
  if (corpus) {
    lines.push(`${document ? 'The document is in' : 'This conversation is about'} the corpus "${corpus.name}" (id ${corpus.id}).`);
    if (corpus.description && corpus.description.length <= SHORT) lines.push(`The corpus description:\n${corpus.description}`);
  }
  return lines.join('\n\n');
}
