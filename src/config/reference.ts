import { z } from 'zod';
import { configSections } from './config.js';
import { bool } from './env-values.js';

type SectionName = keyof typeof configSections;

/** The page's sections in reading order: a heading, and the page that tells more. */
const SECTIONS = {
  server: ['Server', '[Operating](operating.md)'],
  log: ['Logging', '[Operating](operating.md)'],
  database: ['Database', '[Operating](operating.md#postgresql)'],
  pubsub: ['Pubsub', '[Operating](operating.md#postgresql)'],
  workers: ['Workers', '[Operating](operating.md#several-workers-on-one-machine)'],
  auth: ['Identity', '[Security](security.md#identity-and-scoping)'],
  security: ['Limits on callers', '[Security](security.md)'],
  llm: ['Models', '[Agents](agents.md#agents)'],
  agents: ['Agents and turns', '[Agents](agents.md)'],
  workflow: ['Routing and background jobs', '[Agents](agents.md#routing), [REM](rem.md#dreaming)'],
  rem: ['REM memory', '[REM](rem.md)'],
  ingest: ['File ingestion', '[REM](rem.md#file-ingestion)'],
  inbound: ['Inbound email', '[Email](email.md)'],
  mcp: ['MCP servers', '[Protocols](protocols.md#mcp-tools-for-agents)'],
  telemetry: ['Tracing', '[Protocols](protocols.md#opentelemetry)'],
} satisfies Record<SectionName, [heading: string, more: string]>;

interface Setting {
  name: string;
  type: string;
  default: string;
  description: string;
}

/** docs/configuration.md: every variable of the config models with its type, default and description. */
export function configReference(): string {
  const listed = new Set<string>();
  const parts = [
    '# Configuration',
    '',
    '<!-- Generated from the zod models in src/config/ by `npm run docs:config`; a test fails when this page is stale. -->',
    '',
    'Every setting is an environment variable, validated at start-up (`src/config/`, one zod model per concern); a bad value stops the server with a message naming it. A variable two concerns read is listed once, under the first.',
  ];
  for (const [name, [heading, more]] of Object.entries(SECTIONS) as [SectionName, [string, string]][]) {
    const settings = variablesOf(configSections[name]).filter((s) => !listed.has(s.name));
    if (!settings.length) continue;
    for (const s of settings) listed.add(s.name);
    const rows = settings.map((s) => [`\`${s.name}\``, s.type, s.default, s.description].map(cell));
    parts.push('', `## ${heading}`, '', `See ${more}.`, '', ...table(['variable', 'type', 'default', 'description'], rows));
  }
  return `${parts.join('\n')}\n`;
}

function variablesOf(section: z.ZodType): Setting[] {
  let model: z.ZodType = section;
  while (!(model instanceof z.ZodObject)) {
    if (!(model instanceof z.ZodPipe)) throw new Error(`a config section is neither an object nor a transformed one: ${model._zod.def.type}`);
    model = model.in as z.ZodType;
  }
  return Object.entries(model.shape as Record<string, z.ZodType>).map(([name, schema]) => setting(name, schema));
}

/** A variable's documentation, read through its wrappers (optional, default, transforms). */
function setting(name: string, schema: z.ZodType): Setting {
  let description: string | undefined;
  let shownType: string | undefined;
  let shownDefault: string | undefined;
  let fallback = '—';
  let type = '';
  for (let layer: z.ZodType | undefined = schema; layer;) {
    const meta = z.globalRegistry.get(layer);
    description ??= meta?.description;
    shownType ??= typeof meta?.shownType === 'string' ? meta.shownType : undefined;
    shownDefault ??= typeof meta?.shownDefault === 'string' ? meta.shownDefault : undefined;
    if (layer === bool) {
      type = 'boolean (`true`, `false`, `1`, `0`, `yes`, `no`)';
      break;
    }
    if (layer instanceof z.ZodOptional) layer = layer.unwrap() as z.ZodType;
    else if (layer instanceof z.ZodDefault) {
      fallback = `\`${String(layer._zod.def.defaultValue)}\``;
      layer = layer.unwrap() as z.ZodType;
    } else if (layer instanceof z.ZodPipe) layer = layer.in as z.ZodType;
    else {
      type = typeOf(layer);
      break;
    }
  }
  if (!description) throw new Error(`${name} has no description: give it .describe('…') in src/config/`);
  return { name, type: shownType ?? type, default: shownDefault ?? fallback, description };
}

function typeOf(schema: z.ZodType): string {
  if (schema instanceof z.ZodEnum) return `one of ${schema.options.map((o) => `\`${String(o)}\``).join(', ')}`;
  if (schema instanceof z.ZodURL) return 'URL';
  if (schema instanceof z.ZodNumber) return numberType(schema);
  return schema._zod.def.type;
}

/** `integer, 1–100`, `integer ≥ 0`, `number > 0`: the kind and the bounds a value must keep. */
function numberType(schema: z.ZodNumber): string {
  const kind = schema.format === 'safeint' ? 'integer' : 'number';
  const bound = (value: number | null) => value !== null && Math.abs(value) < Number.MAX_SAFE_INTEGER;
  const { minValue: min, maxValue: max } = schema;
  const exclusiveMin = (schema._zod.def.checks ?? []).some((c) => {
    const def = c._zod.def as { check: string; inclusive?: boolean };
    return def.check === 'greater_than' && def.inclusive === false;
  });
  if (bound(min) && bound(max)) return `${kind}, ${min}–${max}`;
  if (bound(min)) return `${kind} ${exclusiveMin ? '>' : '≥'} ${min}`;
  if (bound(max)) return `${kind} ≤ ${max}`;
  return kind;
}

/** A markdown table with its columns padded to one width, as Prettier prints it. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, 3, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** Text safe in a table cell. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
