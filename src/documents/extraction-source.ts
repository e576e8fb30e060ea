import type { AgentContext } from '../auth/agent-context.js';
import { getCorpus, requireInCorpus } from './corpora.js';
import { documentText } from './document-text.js';
import { documentTitle, getDocument } from './documents.js';
import { searchPassages, type SearchDeps } from './search.js';

/** A document this long or shorter is read whole; a longer one (and a corpus) by its most relevant passages. */
const WHOLE_DOCUMENT_CHARS = 24_000;
const PASSAGES = 12;

/** What an extraction reads: the stored text it was given, and how it was chosen. */
export interface ExtractionSource {
  text: string;
  /** WHOLE: the document's full text; PASSAGES: the passages most similar to the prompt. */
  mode: 'WHOLE' | 'PASSAGES';
  passages: number;
}

/**
 * The text to extract from, out of what is stored: a document's whole text when it is short, else
 * (and for a corpus) the passages most similar to the prompt, each headed by its document and page.
 */
export async function extractionSource(
  deps: SearchDeps,
  ctx: AgentContext,
  from: { documentId: string | null; corpusId: string | null },
  prompt: string,
): Promise<ExtractionSource> {
  if (from.corpusId) await getCorpus(deps.prisma, ctx, from.corpusId);
  if (from.documentId) {
    const document = await getDocument(deps.prisma, ctx, from.documentId);
    if (from.corpusId) await requireInCorpus(deps.prisma, from.corpusId, [document.id]);
    const { text } = await documentText(deps.prisma, document);
    if (text.length <= WHOLE_DOCUMENT_CHARS) return { text: `Document "${documentTitle(document)}":\n\n${text}`, mode: 'WHOLE', passages: 0 };
  }
  const scope = from.documentId ? { documentId: from.documentId } : { corpusId: from.corpusId };
  const passages = await searchPassages(deps, ctx, { query: prompt.slice(0, 4000), k: PASSAGES, ...scope });
  const text = passages.map((p) => `[${p.title}${p.page === null ? '' : `, page ${p.page}`}]\n${p.text}`).join('\n\n---\n\n');
  return { text, mode: 'PASSAGES', passages: passages.length };
}
