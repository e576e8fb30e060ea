import { extract } from '../../turns/extract.js';
import { ModelError, NotFoundError, RateLimitedError, ValidationError } from '../../errors.js';
import { builder } from '../builder.js';
import { UsageRef } from './events.js';

const ExtractInput = builder.inputType('ExtractInput', {
  fields: (t) => ({
    agent: t.string({ description: 'The agent whose instructions (and, without `schema`, output schema) are used.' }),
    content: t.string(),
    schema: t.field({ type: 'JSON', required: false, description: 'JSON Schema of the result; defaults to the agent’s structured output schema.' }),
    model: t.string({ required: false }),
  }),
});

const ExtractPayload = builder.objectRef<Awaited<ReturnType<typeof extract>>>('ExtractPayload').implement({
  fields: (t) => ({
    data: t.field({ type: 'JSON', nullable: true, description: 'The result, valid against the schema.', resolve: (p) => p.data }),
    model: t.exposeString('model'),
    usage: t.field({ type: UsageRef, resolve: (p) => p.usage }),
  }),
});

builder.mutationField('extract', (t) =>
  t.field({
    type: ExtractPayload,
    description: 'One-shot structured extraction: validated JSON (one repair round, then VALIDATION_FAILED). Stores nothing.',
    errors: { types: [ValidationError, NotFoundError, ModelError, RateLimitedError], directResult: true },
    args: { input: t.arg({ type: ExtractInput }) },
    resolve: (_root, { input }, ctx) =>
      extract(ctx, ctx.viewer, {
        agent: input.agent,
        content: input.content,
        schema: input.schema as Record<string, unknown> | null | undefined,
        model: input.model,
      }),
  }),
);
