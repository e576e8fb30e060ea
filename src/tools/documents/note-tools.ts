import { z } from 'zod';
import { addNote, getNote, listNotes, MAX_NOTE, searchNotes, updateNote } from '../../documents/notes.js';
import type { DocumentNote } from '../../db/generated/client.js';
import { tokenCounterFor } from '../../llm/token-count.js';
import { defineTool } from '../define-tool.js';
import { boundNoteScope, MAX_TOOL_TEXT, READ_ONLY, WRITES } from './bound.js';

const PREVIEW = 512;
const noteId = z.string().uuid().describe('The note’s id.');
const noteForModel = (note: DocumentNote, full = false) => ({
  id: note.id,
  title: note.title,
  content: full || note.content.length <= PREVIEW ? note.content : `${note.content.slice(0, PREVIEW)}… [${note.content.length - PREVIEW} more characters]`,
  created: note.createdAt.toISOString(),
  updated: note.updatedAt.toISOString(),
});

/** Notes on the bound document within the bound corpus. */
export function noteTools() {
  const list = defineTool({
    name: 'get_notes_for_document_corpus',
    description: 'The notes attached to the document within the active corpus (long contents cut; read them with get_partial_note_content).',
    input: z.object({}),
    requiresCorpus: true,
    annotations: READ_ONLY,
    handler: async (_args, ctx) => ({ notes: (await listNotes(ctx.prisma, ctx.agent, boundNoteScope(ctx))).map((n) => noteForModel(n)) }),
  });
  const tokens = defineTool({
    name: 'get_note_content_token_length',
    description: 'Approximate token length of one note’s content.',
    input: z.object({ note_id: noteId }),
    requiresCorpus: true,
    annotations: READ_ONLY,
    async handler({ note_id }, ctx) {
      const note = await getNote(ctx.prisma, ctx.agent, note_id, boundNoteScope(ctx));
      return { tokens: (await tokenCounterFor('default')).text(note.content) };
    },
  });
  const partial = defineTool({
    name: 'get_partial_note_content',
    description: `A slice of a note’s content, from start to end (at most ${MAX_TOOL_TEXT} characters at once).`,
    input: z.object({ note_id: noteId, start: z.number().int().min(0).default(0), end: z.number().int().min(0).optional() }),
    requiresCorpus: true,
    annotations: READ_ONLY,
    async handler({ note_id, start, end }, ctx) {
      const note = await getNote(ctx.prisma, ctx.agent, note_id, boundNoteScope(ctx));
      const stop = Math.min(end ?? note.content.length, note.content.length, start + MAX_TOOL_TEXT);
      return { content: note.content.slice(start, stop), start, end: Math.max(start, stop), length: note.content.length };
    },
  });
  const search = defineTool({
    name: 'search_document_notes',
    description: 'Notes of the document (within the corpus) whose title or content holds a keyword.',
    input: z.object({ search_term: z.string().min(1).max(500), limit: z.number().int().min(1).max(100).default(20) }),
    requiresCorpus: true,
    annotations: READ_ONLY,
    async handler({ search_term, limit }, ctx) {
      const notes = await searchNotes(ctx.prisma, ctx.agent, boundNoteScope(ctx), search_term);
      return { notes: notes.slice(0, limit).map((n) => noteForModel(n)) };
    },
  });
  const add = defineTool({
    name: 'add_document_note',
    description: 'Create a new note on the document within the corpus.',
    input: z.object({ title: z.string().min(1).max(500), content: z.string().min(1).max(MAX_NOTE) }),
    requiresApproval: true,
    requiresCorpus: true,
    annotations: WRITES,
    async handler({ title, content }, ctx) {
      const note = await addNote(ctx.prisma, ctx.agent, boundNoteScope(ctx), { title, content }, { agentName: ctx.agentName });
      return { note: noteForModel(note, true) };
    },
  });
  const update = defineTool({
    name: 'update_document_note',
    description: 'Change a note: its new content (and title) become a new revision; earlier revisions are kept.',
    input: z.object({ note_id: noteId, new_content: z.string().min(1).max(MAX_NOTE), title: z.string().min(1).max(500).optional() }),
    requiresApproval: true,
    requiresCorpus: true,
    annotations: WRITES,
    async handler({ note_id, new_content, title }, ctx) {
      const scope = boundNoteScope(ctx);
      const note = await updateNote(ctx.prisma, ctx.agent, note_id, { content: new_content, title }, { agentName: ctx.agentName, scope });
      return { note: noteForModel(note, true) };
    },
  });
  return [list, tokens, partial, search, add, update];
}
