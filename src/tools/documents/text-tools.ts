import { z } from 'zod';
import { documentText } from '../../documents/document-text.js';
import { getDocument } from '../../documents/documents.js';
import { searchPassages, type SearchDeps } from '../../documents/search.js';
import { latestSummary } from '../../documents/summaries.js';
import { tokenCounterFor } from '../../llm/token-count.js';
import { defineTool } from '../define-tool.js';
import type { ToolContext } from '../tool.js';
import { boundDocument, MAX_TOOL_TEXT, READ_ONLY } from './bound.js';

/** The document's markdown summary: its latest version, else the summary its resource was ingested with. */
async function mdSummary(ctx: ToolContext): Promise<string> {
  const id = boundDocument(ctx);
  const latest = await latestSummary(ctx.prisma, ctx.agent, id);
  return latest?.content ?? (await getDocument(ctx.prisma, ctx.agent, id)).summary ?? '';
}

const loadSummary = (name: string) =>
  defineTool({
    name,
    description: 'Load the markdown summary of the document.',
    input: z.object({}),
    annotations: READ_ONLY,
    handler: async (_args, ctx) => ({ summary: await mdSummary(ctx) }),
  });

/** Passages, summary and text of the bound document. `deps.rem` searches. */
export function textTools(deps: Pick<SearchDeps, 'rem'>) {
  const similaritySearch = defineTool({
    name: 'similarity_search',
    description:
      'Semantic search for the passages most relevant to a query: in the current document, or across the corpus in a corpus conversation. Each passage comes with its page and similarity score.',
    input: z.object({
      query: z.string().min(1).max(4000).describe('What to look for.'),
      k: z.number().int().min(1).max(50).default(5).describe('How many passages.'),
    }),
    annotations: READ_ONLY,
    async handler({ query, k }, ctx) {
      const documentId = ctx.binding?.documentId ?? null;
      const corpusId = documentId ? null : (ctx.binding?.corpusId ?? null);
      if (!documentId && !corpusId) boundDocument(ctx);
      const passages = await searchPassages({ prisma: ctx.prisma, rem: deps.rem }, ctx.agent, { query, k, documentId, corpusId });
      const inCorpus = ctx.binding?.corpusId ?? null;
      if (passages.length) {
        ctx.emit({
          type: 'sources',
          sources: passages.map((p) => ({
            key: p.chunkKey,
            entityType: 'resources',
            title: p.title,
            snippet: p.text.length > 300 ? `${p.text.slice(0, 299)}…` : p.text,
            score: p.score,
            page: p.page,
            documentId: p.documentId,
            corpusId: inCorpus,
            annotationLabel: p.annotationLabel,
          })),
        });
      }
      return { passages: passages.map((p) => ({ document_id: p.documentId, title: p.title, page: p.page, score: p.score, text: p.text })) };
    },
  });
  const summaryTokens = defineTool({
    name: 'get_md_summary_token_length',
    description: 'Approximate token length of the document’s markdown summary.',
    input: z.object({}),
    annotations: READ_ONLY,
    handler: async (_args, ctx) => ({ tokens: (await tokenCounterFor('default')).text(await mdSummary(ctx)) }),
  });
  const textExtract = defineTool({
    name: 'load_document_txt_extract',
    description: `Load the document’s plain text, or the characters from start to end (at most ${MAX_TOOL_TEXT} at once).`,
    input: z.object({
      start: z.number().int().min(0).optional().describe('First character (default 0).'),
      end: z.number().int().min(0).optional().describe('Character after the last one (default: the end).'),
    }),
    annotations: READ_ONLY,
    async handler({ start = 0, end }, ctx) {
      const document = await getDocument(ctx.prisma, ctx.agent, boundDocument(ctx));
      const { text } = await documentText(ctx.prisma, document);
      const stop = Math.min(end ?? text.length, text.length, start + MAX_TOOL_TEXT);
      return { text: text.slice(start, stop), start, end: Math.max(start, stop), length: text.length };
    },
  });
  return [similaritySearch, loadSummary('load_md_summary'), loadSummary('load_document_md_summary'), summaryTokens, textExtract];
}
