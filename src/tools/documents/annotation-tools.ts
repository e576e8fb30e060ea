import { z } from 'zod';
import type { Annotation } from '../../db/generated/client.js';
import { addExactStringAnnotations, duplicateAnnotations } from '../../documents/annotations.js';
import { defineTool } from '../define-tool.js';
import { boundNoteScope, WRITES } from './bound.js';

const annotationForModel = (a: Annotation) => ({ id: a.id, label: a.label, start: a.start, end: a.end, page: a.page, text: a.text });

/** Labelling spans of the bound document within the bound corpus. */
export function annotationTools() {
  const duplicate = defineTool({
    name: 'duplicate_annotations',
    description: 'Copy annotations of the document under a new label.',
    input: z.object({ annotation_ids: z.array(z.string().uuid()).min(1).max(500), new_label: z.string().min(1).max(100) }),
    requiresApproval: true,
    requiresCorpus: true,
    annotations: WRITES,
    async handler({ annotation_ids, new_label }, ctx) {
      const created = await duplicateAnnotations(ctx.prisma, ctx.agent, boundNoteScope(ctx), { annotationIds: annotation_ids, newLabel: new_label });
      return { annotations: created.map(annotationForModel) };
    },
  });
  const exact = defineTool({
    name: 'add_exact_string_annotations',
    description: 'Label every occurrence of each exact string in the document’s text (spans of one label never overlap).',
    input: z.object({ label: z.string().min(1).max(100), exact_strings: z.array(z.string().min(1).max(2000)).min(1).max(100) }),
    requiresApproval: true,
    requiresCorpus: true,
    annotations: WRITES,
    async handler({ label, exact_strings }, ctx) {
      const created = await addExactStringAnnotations(ctx.prisma, ctx.agent, boundNoteScope(ctx), { label, strings: exact_strings });
      return { annotations: created.map(annotationForModel) };
    },
  });
  return [duplicate, exact];
}
