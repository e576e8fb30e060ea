import { z } from 'zod';
import { latestSummary, MAX_SUMMARY, summaryDiff, summaryVersions, updateSummary } from '../../documents/summaries.js';
import { defineTool } from '../define-tool.js';
import { boundCorpus, boundDocument, READ_ONLY, WRITES } from './bound.js';

/** The versioned summary of the bound document (the seed offers these within a corpus). */
export function summaryTools() {
  const get = defineTool({
    name: 'get_document_summary',
    description: 'The latest markdown summary of the document (null when it has none).',
    input: z.object({}),
    requiresCorpus: true,
    annotations: READ_ONLY,
    async handler(_args, ctx) {
      boundCorpus(ctx);
      const latest = await latestSummary(ctx.prisma, ctx.agent, boundDocument(ctx));
      return { summary: latest?.content ?? null, version: latest?.version ?? null };
    },
  });
  const versions = defineTool({
    name: 'get_document_summary_versions',
    description: 'The version history of the document’s summary, newest first: version, author, time and content.',
    input: z.object({ limit: z.number().int().min(1).max(100).default(10) }),
    requiresCorpus: true,
    annotations: READ_ONLY,
    async handler({ limit }, ctx) {
      boundCorpus(ctx);
      const all = await summaryVersions(ctx.prisma, ctx.agent, boundDocument(ctx));
      return {
        versions: all
          .reverse()
          .slice(0, limit)
          .map((v) => ({ version: v.version, author: v.authorId, agent: v.agentName, created: v.createdAt.toISOString(), content: v.content })),
      };
    },
  });
  const diff = defineTool({
    name: 'get_document_summary_diff',
    description: 'Unified diff between two versions of the document’s summary.',
    input: z.object({ from_version: z.number().int().min(1), to_version: z.number().int().min(1) }),
    requiresCorpus: true,
    annotations: READ_ONLY,
    async handler({ from_version, to_version }, ctx) {
      boundCorpus(ctx);
      return { diff: await summaryDiff(ctx.prisma, ctx.agent, boundDocument(ctx), from_version, to_version) };
    },
  });
  const update = defineTool({
    name: 'update_document_summary',
    description: 'Create or update the document’s markdown summary: a new version (earlier ones are kept).',
    input: z.object({ new_content: z.string().min(1).max(MAX_SUMMARY) }),
    requiresApproval: true,
    requiresCorpus: true,
    annotations: WRITES,
    async handler({ new_content }, ctx) {
      boundCorpus(ctx);
      const version = await updateSummary(ctx.prisma, ctx.agent, boundDocument(ctx), new_content, { agentName: ctx.agentName });
      return { version: version.version, created: version.createdAt.toISOString() };
    },
  });
  return [get, versions, diff, update];
}
