import { z } from 'zod';
import { getCorpus, MAX_DESCRIPTION, requireInCorpus, updateCorpusDescription } from '../../documents/corpora.js';
import { documentsWhere, documentTitle } from '../../documents/documents.js';
import { askAgentResult } from '../builtin/ask-agent.js';
import { defineTool } from '../define-tool.js';
import { boundCorpus, READ_ONLY, WRITES } from './bound.js';

const MAX_LISTED = 200;

/** The bound corpus: its description, its documents, and questions to one of them. */
export function corpusTools() {
  const describe = defineTool({
    name: 'get_corpus_description',
    description: 'The markdown description of the corpus.',
    input: z.object({}),
    requiresCorpus: true,
    annotations: READ_ONLY,
    async handler(_args, ctx) {
      const corpus = await getCorpus(ctx.prisma, ctx.agent, boundCorpus(ctx));
      return { name: corpus.name, description: corpus.description };
    },
  });
  const update = defineTool({
    name: 'update_corpus_description',
    description: 'Replace the corpus’s markdown description (a new version; earlier ones are kept).',
    input: z.object({ new_content: z.string().min(1).max(MAX_DESCRIPTION) }),
    requiresCorpus: true,
    annotations: WRITES,
    async handler({ new_content }, ctx) {
      const corpus = await updateCorpusDescription(ctx.prisma, ctx.agent, boundCorpus(ctx), new_content, { agentName: ctx.agentName });
      return { name: corpus.name, description: corpus.description };
    },
  });
  const list = defineTool({
    name: 'list_documents',
    description: `The documents in the corpus (at most ${MAX_LISTED}): id, title, key.`,
    input: z.object({}),
    requiresCorpus: true,
    annotations: READ_ONLY,
    async handler(_args, ctx) {
      const corpusId = boundCorpus(ctx);
      await getCorpus(ctx.prisma, ctx.agent, corpusId);
      const documents = await ctx.prisma.resource.findMany({
        where: documentsWhere(ctx.agent, corpusId),
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: MAX_LISTED,
      });
      return { documents: documents.map((d) => ({ id: d.id, title: documentTitle(d), key: d.key })) };
    },
  });
  const ask = defineTool({
    name: 'ask_document',
    description:
      'Ask a question about one document of the corpus: an agent bound to that document answers (you receive its answer; the user sees it streamed).',
    input: z.object({ document_id: z.string().uuid().describe('A document id from list_documents.'), question: z.string().min(1).max(10_000) }),
    requiresCorpus: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async handler({ document_id, question }, ctx) {
      const corpusId = boundCorpus(ctx);
      await requireInCorpus(ctx.prisma, corpusId, [document_id]);
      const result = await ctx.delegate({ agentName: ctx.agentName, inputText: question, binding: { documentId: document_id, corpusId } });
      return { document_id, ...askAgentResult(result) };
    },
  });
  return [describe, update, list, ask];
}
