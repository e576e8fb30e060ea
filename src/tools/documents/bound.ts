import { ValidationError } from '../../errors.js';
import type { ToolContext } from '../tool.js';

/** The document the turn is bound to; a turn bound to none cannot use a document tool. */
export function boundDocument(ctx: ToolContext): string {
  const id = ctx.binding?.documentId;
  if (!id) throw new ValidationError('This tool works on a document: the turn is bound to none (send the message with a document)');
  return id;
}

/** The corpus the turn is bound to. */
export function boundCorpus(ctx: ToolContext): string {
  const id = ctx.binding?.corpusId;
  if (!id) throw new ValidationError('This tool works within a corpus: the turn is bound to none (send the message with a corpus)');
  return id;
}

/** Both: the document within its corpus (notes live there). */
export function boundNoteScope(ctx: ToolContext): { documentId: string; corpusId: string } {
  return { documentId: boundDocument(ctx), corpusId: boundCorpus(ctx) };
}

/** Longest text a tool hands the model at once; it can ask for the rest by range. */
export const MAX_TOOL_TEXT = 20_000;

export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const WRITES = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
