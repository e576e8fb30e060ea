import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isMap } from 'yaml';
import { z } from 'zod';
import type { FieldIssue } from '../errors.js';
import { PREPROCESSORS, type PreprocessorName } from './preprocessors.js';
import { failLocated, friendlyMessage, locatedZodIssues, parseLocated } from '../agents/yaml-located.js';

/** What a rule looks at; every condition given must hold (AND). */
export interface RuleMatch {
  all?: boolean;
  senderEmail?: string;
  senderDomain?: string;
  subjectContains?: string;
  /** Header name (lower case) → pattern its value must match. */
  headerMatch?: Record<string, RegExp>;
  forwardedFrom?: string;
}

/** One rule of routing.yaml, in file order. */
export interface RoutingRule {
  name: string;
  match: RuleMatch;
  /**
   * `agent` sends matching messages to `profile`; `pipeline` (the default, as in the seed) to the
   * session's agent (or DEFAULT_AGENT) in chat, and an inbound email to classify → draft.
   */
  route: 'agent' | 'pipeline';
  profile: string | null;
  model: string | null;
  preprocessor: PreprocessorName;
}

/** One profile of `agent: profiles:` (the seed's table): an agent the routing file defines itself. */
export interface AgentProfile {
  name: string;
  /** Null: the server's default model. */
  model: string | null;
  maxTokens: number;
  temperature: number;
  maxIterations: number;
  /** Absolute path (written relative to the routing file). */
  systemPromptFile: string;
  tools: string[];
}

export interface RoutingFile {
  rules: RoutingRule[];
  profiles: AgentProfile[];
}

const AGENT_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const email = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[^@\s]+@[^@\s]+$/, 'must be an email address');

const matchFields = z
  .strictObject({
    all: z.literal(true, { error: 'must be true (leave it out otherwise)' }).optional(),
    sender_email: email.optional(),
    sender_domain: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[^@\s]+\.[^@\s]+$/, 'must be a domain, e.g. example.com')
      .optional(),
    subject_contains: z.string().min(1).optional(),
    header_match: z.record(z.string().regex(/^[!-9;-~]+$/, 'must be a header name'), z.string()).optional(),
    forwarded_from: email.optional(),
  })
  .refine((m) => Object.keys(m).length > 0, 'needs at least one condition (all: true matches every message)');

const ruleFields = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    match: matchFields,
    route: z.enum(['agent', 'pipeline']).default('pipeline'),
    profile: z.string().regex(AGENT_NAME, 'must be an agent name').optional(),
    model: z.string().trim().min(1).max(200).optional(),
    preprocessor: z.enum(Object.keys(PREPROCESSORS) as [PreprocessorName, ...PreprocessorName[]]).default('passthrough'),
  })
  .refine((r) => r.route !== 'agent' || r.profile !== undefined, { message: 'route: agent needs a profile (the agent to run)', path: ['profile'] })
  .refine((r) => r.route !== 'pipeline' || r.profile === undefined, {
    message: 'a profile is only for route: agent (a rule without route is pipeline; add route: agent)',
    path: ['profile'],
  });

const profileFields = z.strictObject({
  model: z.string().trim().min(1).max(200).optional(),
  max_tokens: z.int().min(1).default(4096),
  temperature: z.number().min(0).max(2).default(0.3),
  max_iterations: z.int().min(1).max(50).default(10),
  system_prompt_file: z.string().trim().min(1),
  tools: z.array(z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/, 'must be a tool name')),
});

const fileShape = z.strictObject({
  routing: z.strictObject({ rules: z.array(ruleFields) }),
  agent: z.strictObject({ profiles: z.record(z.string().regex(AGENT_NAME, 'must be an agent name'), profileFields) }).optional(),
});

/** What a routing file's names are checked against at start-up (the server's tools and agents, the prompt files). */
export interface RoutingChecks {
  /** The directory `system_prompt_file` is relative to. */
  dir: string;
  promptExists(path: string): boolean;
  toolExists(name: string): boolean;
  /** An agent file of that name (a rule's profile may name one instead of a profile). */
  agentExists(name: string): boolean;
}

/**
 * Parses routing.yaml (the routing seed's shape: `routing: { rules: [{ name, match, route,
 * profile }] }`, plus optional `model` and `preprocessor` per rule, and `agent: { profiles }`).
 * With `checks`, a profile's tools and prompt file and a rule's profile must exist. Throws
 * ValidationError whose issues carry the field path and line/column, like agent YAML.
 */
export function parseRoutingYaml(source: string, checks?: RoutingChecks): RoutingFile {
  const { doc, locate } = parseLocated(source, 'routing file', 'routing.yaml is one YAML document; remove the extra "---" separator');
  if (!isMap(doc.contents)) failLocated('routing file', [{ path: [], message: 'must be a mapping with a "routing" key', ...locate([]) }]);
  const parsed = fileShape.safeParse(doc.toJS({ maxAliasCount: 100 }), { error: friendlyMessage });
  if (!parsed.success) failLocated('routing file', locatedZodIssues(parsed.error, locate));
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  const rules = parsed.data.routing.rules.map((rule, i): RoutingRule => {
    if (seen.has(rule.name))
      issues.push({ path: ['routing', 'rules', i, 'name'], message: `rule "${rule.name}" is defined twice`, ...locate(['routing', 'rules', i, 'name']) });
    seen.add(rule.name);
    const headerMatch: Record<string, RegExp> = {};
    for (const [header, pattern] of Object.entries(rule.match.header_match ?? {})) {
      try {
        headerMatch[header.toLowerCase()] = new RegExp(pattern, 'i');
      } catch (error) {
        const path = ['routing', 'rules', i, 'match', 'header_match', header];
        issues.push({ path, message: `not a valid regular expression: ${(error as Error).message}`, ...locate(path) });
      }
    }
    const m = rule.match;
    return {
      name: rule.name,
      match: {
        ...(m.all && { all: true }),
        ...(m.sender_email && { senderEmail: m.sender_email }),
        ...(m.sender_domain && { senderDomain: m.sender_domain }),
        ...(m.subject_contains && { subjectContains: m.subject_contains.toLowerCase() }),
        ...(m.header_match && { headerMatch }),
        ...(m.forwarded_from && { forwardedFrom: m.forwarded_from }),
      },
      route: rule.route,
      profile: rule.route === 'agent' ? rule.profile! : null,
      model: rule.model ?? null,
      preprocessor: rule.preprocessor,
    };
  });
  const at = (path: (string | number)[], message: string) => issues.push({ path, message, ...locate(path) });
  const profiles = Object.entries(parsed.data.agent?.profiles ?? {}).map(([name, p]): AgentProfile => {
    const systemPromptFile = resolve(checks?.dir ?? '.', p.system_prompt_file);
    if (checks && !checks.promptExists(systemPromptFile)) at(['agent', 'profiles', name, 'system_prompt_file'], `no such file: ${systemPromptFile}`);
    p.tools.forEach((tool, i) => {
      if (checks && !checks.toolExists(tool)) at(['agent', 'profiles', name, 'tools', i], `no tool "${tool}" (not built in, and no MCP server lists it)`);
    });
    return {
      name,
      model: p.model ?? null,
      maxTokens: p.max_tokens,
      temperature: p.temperature,
      maxIterations: p.max_iterations,
      systemPromptFile,
      tools: p.tools,
    };
  });
  rules.forEach((rule, i) => {
    if (checks && rule.profile && !profiles.some((p) => p.name === rule.profile) && !checks.agentExists(rule.profile))
      at(['routing', 'rules', i, 'profile'], `unknown profile "${rule.profile}" (not under agent.profiles, and no agent file has that name)`);
  });
  if (issues.length) failLocated('routing file', issues);
  return { rules, profiles };
}

/** ROUTING_FILE's rules and profiles (none when unset); a missing or invalid file stops start-up. */
export async function loadRoutingFile(path: string | undefined, checks: Omit<RoutingChecks, 'dir'>): Promise<RoutingFile> {
  if (!path) return { rules: [], profiles: [] };
  const source = await readFile(path, 'utf8');
  return parseRoutingYaml(source, { ...checks, dir: dirname(resolve(path)) });
}
