import type { ValidateFunction } from 'ajv';
import type { JsonSchema } from '../agents/spec.js';
import type { ResponseFormat } from '../llm/chat-model.js';
import { jsonSchemaAjv } from '../json-schema.js';

export type StructuredCheck = { ok: true; value: unknown } | { ok: false; errors: string[] };

const ajvFor = jsonSchemaAjv({ allErrors: true, strict: false });
// Schemas are compiled once per schema object (agent specs are cached by the registry, a turn keeps
// its caller's response_format). Ajv's own registry would keep every caller's schema for good and
// refuse a second one with the same $id, so each is taken out of it once compiled.
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

const ANY_OBJECT: JsonSchema = { type: 'object' };

/** The schema a reply in `format` must match: its JSON Schema, or any object for `json_object`. */
export function outputSchemaOf(format: ResponseFormat): JsonSchema {
  return format.type === 'json_schema' ? format.json_schema.schema : ANY_OBJECT;
}

/** Why a caller's JSON Schema cannot be used to validate replies, or null when it can. */
export function schemaProblem(schema: JsonSchema): string | null {
  try {
    validatorFor(schema);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Parses a model's structured reply and validates it against the JSON Schema it was asked for.
 * Errors are short lines a model (and a person) can act on: `/path message`.
 */
export function checkStructuredOutput(schema: JsonSchema, text: string): StructuredCheck {
  let value: unknown;
  try {
    value = JSON.parse(stripFence(text));
  } catch (error) {
    return { ok: false, errors: [`not valid JSON: ${(error as Error).message}`] };
  }
  const validate = validatorFor(schema);
  if (validate(value)) return { ok: true, value };
  return { ok: false, errors: (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${paramsNote(e.params)}`) };
}

function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    const ajv = ajvFor(schema);
    try {
      validate = ajv.compile(schema);
    } finally {
      ajv.removeSchema(schema);
    }
    compiled.set(schema, validate);
  }
  return validate;
}

/** The message that asks the model, once, to correct a reply that did not match its schema. */
export function repairInstruction(errors: string[]): string {
  return [
    'Your previous reply did not match the required JSON Schema:',
    ...errors.map((e) => `- ${e}`),
    'Reply again with only the corrected JSON object.',
  ].join('\n');
}

function paramsNote(params: Record<string, unknown>): string {
  if (typeof params.missingProperty === 'string') return '';
  if (Array.isArray(params.allowedValues)) return ` (${params.allowedValues.map(String).join(', ')})`;
  if (typeof params.additionalProperty === 'string') return ` (${params.additionalProperty})`;
  return '';
}

/** Some models wrap JSON in a markdown fence even when asked for a JSON schema. */
function stripFence(text: string): string {
  const match = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return match ? match[1]! : text;
}
