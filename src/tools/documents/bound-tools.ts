import type { AgentContext } from '../../auth/agent-context.js';
import type { PrismaClient } from '../../db/generated/client.js';
import { describeBinding, type DocumentBinding } from '../../documents/binding.js';
import type { SearchDeps } from '../../documents/search.js';
import type { ToolDefinition } from '../tool.js';
import { annotationTools } from './annotation-tools.js';
import { corpusTools } from './corpus-tools.js';
import { noteTools } from './note-tools.js';
import { summaryTools } from './summary-tools.js';
import { textTools } from './text-tools.js';

/** A turn's binding as the runtime keeps it: what it is about, the tools that come with it, and what the model is told. */
export interface TurnBinding extends DocumentBinding {
  tools: string[];
  context: string;
}

// Each tool has its own argument type; a list of them can only erase it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DocumentToolsets = { document: ToolDefinition<any>[]; corpus: ToolDefinition<any>[] };

/**
 * The seed's default tools: those of a document turn (the document's text, summary, notes and
 * annotations) and those of a corpus turn (its description, documents, and ask_document). Both
 * search with similarity_search. The one list of them.
 */
export function documentToolsets(deps: Pick<SearchDeps, 'rem'>): DocumentToolsets {
  const [similaritySearch, ...text] = textTools(deps);
  return {
    document: [similaritySearch!, ...text, ...noteTools(), ...annotationTools(), ...summaryTools()],
    corpus: [similaritySearch!, ...corpusTools()],
  };
}

/** Every tool of the toolsets, once. */
export function allDocumentTools(sets: DocumentToolsets): DocumentToolsets['document'] {
  return [...new Set([...sets.document, ...sets.corpus])];
}

/**
 * Binds a turn: checks the document and corpus for the caller (NOT_FOUND, or VALIDATION_FAILED for
 * a document outside the corpus), names them for the model, and picks the tools: a document's, a
 * corpus's, or both; without a corpus the corpus-only ones are dropped (and named in `dropped`).
 */
export async function bindTurn(
  prisma: PrismaClient,
  toolsets: DocumentToolsets | undefined,
  ctx: AgentContext,
  binding: DocumentBinding,
): Promise<{ binding: TurnBinding; dropped: string[] }> {
  const context = await describeBinding(prisma, ctx, binding);
  const candidates = [...new Set([...(binding.documentId ? (toolsets?.document ?? []) : []), ...(binding.corpusId ? (toolsets?.corpus ?? []) : [])])];
  const offered = candidates.filter((tool) => binding.corpusId || !tool.requiresCorpus);
  const dropped = candidates.filter((tool) => !offered.includes(tool)).map((tool) => tool.name);
  return { binding: { ...binding, tools: offered.map((tool) => tool.name), context }, dropped };
}
