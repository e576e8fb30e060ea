import { Ajv, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const DRAFT_2019 = /^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/;

/**
 * Ajv instances for each JSON Schema draft callers send: a schema naming draft 2020-12 (zod 4's
 * `toJSONSchema`, most current tools) or 2019-09 in `$schema` gets that draft's ajv, anything else
 * draft-07 (ajv's default, which also knows draft-06 and -07 `$schema` URIs).
 */
export function jsonSchemaAjv(options: Options): (schema: object) => AnyAjv {
  const byDraft = { draft07: new Ajv(options), draft2019: new Ajv2019(options), draft2020: new Ajv2020(options) };
  return (schema) => {
    const declared = '$schema' in schema ? schema.$schema : undefined;
    if (typeof declared === 'string' && DRAFT_2020.test(declared)) return byDraft.draft2020;
    if (typeof declared === 'string' && DRAFT_2019.test(declared)) return byDraft.draft2019;
    return byDraft.draft07;
  };
}
