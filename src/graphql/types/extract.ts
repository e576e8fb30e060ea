import { EXTRACT_TYPES, extract } from '../../turns/extract.js';
import { rowId } from '../../http/global-ids.js';
import { ModelError, NotFoundError, RateLimitedError, ValidationError } from '../../errors.js';
import { builder } from '../builder.js';
import { UsageRef } from './events.js';

const ExtractTypeEnum = builder.enumType('ExtractType', { values: EXTRACT_TYPES });

const ExtractSourceRef = builder.objectRef<NonNullable<Awaited<ReturnType<typeof extract>>['source']>>('ExtractSource').implement({
  description: 'What an extraction read from storage.',
  fields: (t) => ({
    mode: t.string({ description: 'WHOLE (the document’s full text) or PASSAGES (those most similar to the prompt).', resolve: (s) => s.mode }),
    passages: t.exposeInt('passages'),
  }),
});

const ExtractInput = builder.inputType('ExtractInput', {
  fields: (t) => ({
    agent: t.string({ description: 'The agent whose instructions (and, without `schema`, output schema) are used.' }),
    content: t.string(),
    schema: t.field({ type: 'JSON', required: false, description: 'JSON Schema of the result; defaults to the agent’s structured output schema.' }),
    model: t.string({ required: false }),
    document: t.id({
      required: false,
      description: 'Extract from this stored Document (`content` is then the prompt): whole when short, else its passages most similar to the prompt.',
    }),
    corpus: t.id({ required: false, description: 'Extract from this Corpus’s passages most similar to the prompt (or name the document’s corpus).' }),
    type: t.field({
      type: ExtractTypeEnum,
      required: false,
      description: 'A primitive result instead of a schema: `data` is that value (or null when the text has none).',
    }),
    systemPrompt: t.string({ required: false, description: 'Replaces the agent’s prompt and the verification instructions.' }),
    temperature: t.float({ required: false }),
    maxTokens: t.int({ required: false }),
    extraContext: t.string({ required: false, description: 'Guidance sent with the request.' }),
    nullOnFailure: t.boolean({
      required: false,
      description: 'A reply that does not match (after one repair) or a failing model gives `data: null` and a `failure`, not an error.',
    }),
  }),
});

const ExtractPayload = builder.objectRef<Awaited<ReturnType<typeof extract>>>('ExtractPayload').implement({
  fields: (t) => ({
    data: t.field({ type: 'JSON', nullable: true, description: 'The result, valid against the schema.', resolve: (p) => p.data }),
    model: t.exposeString('model'),
    usage: t.field({ type: UsageRef, resolve: (p) => p.usage }),
    source: t.field({ type: ExtractSourceRef, nullable: true, resolve: (p) => p.source }),
    failure: t.exposeString('failure', { nullable: true, description: 'Why `data` is null (nullOnFailure).' }),
  }),
});

builder.mutationField('extract', (t) =>
  t.field({
    type: ExtractPayload,
    description:
      'One-shot structured extraction: validated JSON (one repair round, then VALIDATION_FAILED). Stores nothing but its model calls (llm_calls, call type extract).',
    errors: { types: [ValidationError, NotFoundError, ModelError, RateLimitedError], directResult: true },
    args: { input: t.arg({ type: ExtractInput }) },
    resolve: (_root, { input }, ctx) =>
      extract(ctx, ctx.viewer, {
        agent: input.agent,
        content: input.content,
        schema: input.schema as Record<string, unknown> | null | undefined,
        model: input.model,
        document: input.document ? rowId(String(input.document), 'Document', 'input.document') : null,
        corpus: input.corpus ? rowId(String(input.corpus), 'Corpus', 'input.corpus') : null,
        type: input.type,
        systemPrompt: input.systemPrompt,
        temperature: input.temperature,
        maxTokens: input.maxTokens,
        extraContext: input.extraContext,
        nullOnFailure: input.nullOnFailure,
      }),
  }),
);
