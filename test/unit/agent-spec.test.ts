import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { agentContentHash, parseAgentYaml, type AgentSpec } from '../../src/agents/spec.js';
import { ValidationError, type FieldIssue } from '../../src/errors.js';

const schemasDir = fileURLToPath(new URL('../../schemas/', import.meta.url));

function issuesOf(source: string): FieldIssue[] {
  try {
    parseAgentYaml(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('VALIDATION_FAILED');
    return (error as ValidationError).issues;
  }
  throw new Error('expected a ValidationError');
}

function issueAt(issues: FieldIssue[], path: (string | number)[]): FieldIssue {
  const issue = issues.find((candidate) => JSON.stringify(candidate.path) === JSON.stringify(path));
  if (!issue) throw new Error(`no issue at ${JSON.stringify(path)}; got ${JSON.stringify(issues)}`);
  return issue;
}

const flatYaml = `
type: object
name: researcher
version: "1.2.0"
description: |
  You are a research assistant. Search before answering.
properties:
  topic:
    type: string
    description: Primary topic of the question
  requires_search:
    type: boolean
required: [topic]
tools:
  - name: search
    description: Query KB using REM
  - action
  - name: send_email
    server: mail
    requires_approval: true
model: gpt-4.1-mini
temperature: 0.2
max_tokens: 2000
max_iterations: 6
limits:
  request_limit: 10
  total_tokens_limit: 50000
`;

const legacyYaml = `
type: object
description: |
  You are a research assistant. Search before answering.
properties:
  topic:
    type: string
    description: Primary topic of the question
  requires_search:
    type: boolean
required:
  - topic
json_schema_extra:
  kind: agent
  name: researcher
  version: "1.2.0"
  tools:
    - name: search
      description: Query KB using REM
    - name: action
    - name: send_email
      mcp_server: mail
      requires_approval: true
  model: gpt-4.1-mini
  temperature: 0.2
  max_tokens: 2000
  max_iterations: 6
  limits:
    request_limit: 10
    total_tokens_limit: 50000
`;

describe('parseAgentYaml', () => {
  it('normalizes the flat form', () => {
    expect(parseAgentYaml(flatYaml)).toEqual({
      name: 'researcher',
      kind: 'agent',
      audience: 'chat',
      version: '1.2.0',
      description: 'You are a research assistant. Search before answering.',
      properties: {
        topic: { type: 'string', description: 'Primary topic of the question' },
        requires_search: { type: 'boolean' },
      },
      required: ['topic'],
      tools: [
        { name: 'search', description: 'Query KB using REM', requiresApproval: false },
        { name: 'action', requiresApproval: false },
        { name: 'send_email', server: 'mail', requiresApproval: true },
      ],
      model: 'gpt-4.1-mini',
      temperature: 0.2,
      maxTokens: 2000,
      maxIterations: 6,
      limits: { requestLimit: 10, totalTokensLimit: 50000 },
      structuredOutput: false,
    } satisfies AgentSpec);
  });

  it('gives the legacy json_schema_extra form the same normalized shape and hash', () => {
    const flat = parseAgentYaml(flatYaml);
    const legacy = parseAgentYaml(legacyYaml);
    expect(legacy).toEqual(flat);
    expect(agentContentHash(legacy)).toBe(agentContentHash(flat));
  });

  it('fills defaults', () => {
    const spec = parseAgentYaml('name: tiny\ndescription: Be brief.\n');
    expect(spec).toEqual({
      name: 'tiny',
      kind: 'agent',
      audience: 'chat',
      description: 'Be brief.',
      properties: {},
      required: [],
      tools: [],
      maxIterations: 10,
      limits: {},
      structuredOutput: false,
    });
    expect(spec).not.toHaveProperty('version');
    expect(spec).not.toHaveProperty('model');
    expect(spec).not.toHaveProperty('temperature');
  });

  it('keeps an unquoted version as written', () => {
    expect(parseAgentYaml('name: a\ndescription: b\nversion: 1.0\n').version).toBe('1.0');
  });

  it('treats a null server as local', () => {
    const spec = parseAgentYaml('name: a\ndescription: b\ntools:\n  - name: search\n    server: null\n');
    expect(spec.tools).toEqual([{ name: 'search', requiresApproval: false }]);
  });

  it('turns named legacy resources into tools and drops unnamed ones, as p8 does', () => {
    const spec = parseAgentYaml(`
type: object
description: Answer from REM.
json_schema_extra:
  name: query-agent
  tools:
    - name: search_rem
      mcp_server: rem
  resources:
    - uri_pattern: rem://.*
    - name: User Profile
      description: The caller's profile
`);
    expect(spec.tools).toEqual([
      { name: 'search_rem', server: 'rem', requiresApproval: false },
      { name: 'user_profile', description: "The caller's profile", requiresApproval: false },
    ]);
  });

  describe('built-in agents in schemas/', () => {
    const files = readdirSync(schemasDir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.yaml') && file !== 'routing.yaml')
      .sort();

    it('include the expected agents', () => {
      expect(files).toEqual(expect.arrayContaining(['dreaming.yaml', 'evaluators/answer-quality.yaml', 'general.yaml', 'sample.yaml']));
    });

    it.each(files)('%s parses', (file) => {
      const spec = parseAgentYaml(readFileSync(schemasDir + file, 'utf8'));
      expect(spec.name).toBe(file.replace(/^.*\//, '').replace(/\.yaml$/, ''));
    });

    const load = (file: string) => parseAgentYaml(readFileSync(schemasDir + file, 'utf8'));

    it('general is conversational with described action, register_metadata and search', () => {
      const spec = load('general.yaml');
      expect(spec.structuredOutput).toBe(false);
      const described = spec.tools.filter((tool) => tool.description).map((tool) => tool.name);
      expect(described.sort()).toEqual(['action', 'register_metadata', 'search']);
    });

    it('sample is written in the legacy form', () => {
      expect(readFileSync(schemasDir + 'sample.yaml', 'utf8')).toContain('json_schema_extra:');
      expect(load('sample.yaml').kind).toBe('agent');
    });

    it('dreaming and answer-quality are structured', () => {
      const dreaming = load('dreaming.yaml');
      expect(dreaming.structuredOutput).toBe(true);
      expect(dreaming.required).toEqual(['moments', 'entities', 'edges']);
      const judge = load('evaluators/answer-quality.yaml');
      expect(judge.kind).toBe('evaluator');
      expect(judge.structuredOutput).toBe(true);
    });
  });

  describe('rejects', () => {
    it('YAML syntax errors, with line and column', () => {
      const issues = issuesOf('name: a\ndescription: "unterminated\ntools: []\n');
      expect(issues[0]?.message).toMatch(/^YAML syntax: .*quote/);
      expect(issues[0]).toMatchObject({ path: [], line: 4, column: 1 });

      const duplicate = issuesOf('name: a\nname: b\ndescription: x\n');
      expect(duplicate[0]).toMatchObject({ line: 2, column: 1 });
      expect(duplicate[0]?.message).toMatch(/unique/);
    });

    it('more than one document', () => {
      expect(issuesOf('name: a\ndescription: b\n---\nname: c\n')[0]?.message).toMatch(/one YAML document/);
    });

    it('empty and non-mapping documents', () => {
      expect(issuesOf('')[0]?.message).toMatch(/empty/);
      expect(issuesOf('# just a comment\n')[0]?.message).toMatch(/empty/);
      expect(issuesOf('- name: a\n')[0]).toMatchObject({ message: expect.stringMatching(/mapping.*not a list/), line: 1 });
      expect(issuesOf('hello\n')[0]?.message).toMatch(/not a single value/);
    });

    it('unknown top-level keys, with path, position and a suggestion', () => {
      const issue = issueAt(issuesOf('name: a\ndescription: b\ntoolz:\n  - search\n'), ['toolz']);
      expect(issue).toMatchObject({ line: 3, column: 1 });
      expect(issue.message).toContain('did you mean "tools"');
    });

    it('unknown nested keys', () => {
      const issues = issuesOf('name: a\ndescription: b\ntools:\n  - name: search\n    requires_aproval: true\nlimits:\n  request_limt: 3\n');
      expect(issueAt(issues, ['tools', 0, 'requires_aproval'])).toMatchObject({ line: 5, column: 5 });
      expect(issueAt(issues, ['limits', 'request_limt']).message).toContain('"request_limit"');
    });

    it('config keys at the top of a legacy document', () => {
      const issues = issuesOf('description: b\ntools: [search]\njson_schema_extra:\n  name: a\n');
      expect(issueAt(issues, ['tools'])).toMatchObject({ line: 2, column: 1 });
      expect(issueAt(issues, ['tools']).message).toContain('json_schema_extra');
    });

    it('missing and wrongly typed fields', () => {
      const issues = issuesOf('name: General Agent\ntemperature: hot\nmax_iterations: 0\nkind: bot\nstructured_output: "yes"\n');
      expect(issueAt(issues, ['name'])).toMatchObject({ line: 1, column: 7 });
      expect(issueAt(issues, ['description']).message).toBe('is required');
      expect(issueAt(issues, ['temperature'])).toMatchObject({ line: 2, column: 14 });
      expect(issueAt(issues, ['temperature']).message).toMatch(/must be a number/);
      expect(issueAt(issues, ['max_iterations']).message).toBe('must be >= 1');
      expect(issueAt(issues, ['kind']).message).toBe('must be "agent" or "evaluator"');
      expect(issueAt(issues, ['structured_output']).message).toMatch(/true or false/);
    });

    it('out-of-range numbers', () => {
      const issues = issuesOf('name: a\ndescription: b\ntemperature: 2.5\nmax_iterations: 51\nmax_tokens: 1.5\n');
      expect(issueAt(issues, ['temperature']).message).toBe('must be <= 2');
      expect(issueAt(issues, ['max_iterations']).message).toBe('must be <= 50');
      expect(issueAt(issues, ['max_tokens']).message).toMatch(/integer/);
    });

    it('bad tool references', () => {
      const issues = issuesOf('name: a\ndescription: b\ntools:\n  - 42\n  - name: bad name!\n  - {server: x}\n');
      expect(issueAt(issues, ['tools', 0])).toMatchObject({ line: 4, column: 5 });
      expect(issueAt(issues, ['tools', 0]).message).toMatch(/tool name or a mapping/);
      expect(issueAt(issues, ['tools', 1, 'name'])).toMatchObject({ line: 5, column: 11 });
      expect(issueAt(issues, ['tools', 2, 'name']).message).toBe('is required');
    });

    it('a tool listed twice', () => {
      const issue = issueAt(issuesOf('name: a\ndescription: b\ntools: [search, action, search]\n'), ['tools', 2, 'name']);
      expect(issue).toMatchObject({ line: 3, column: 25 });
    });

    it('invalid JSON schema in properties', () => {
      const issues = issuesOf('name: a\ndescription: b\nproperties:\n  topic:\n    type: strin\n');
      const issue = issueAt(issues, ['properties', 'topic', 'type']);
      expect(issue).toMatchObject({ line: 5, column: 11 });
      expect(issue.message).toMatch(/invalid JSON schema: must be one of .*string/);
    });

    it('unknown JSON schema keywords in properties', () => {
      const issues = issuesOf('name: a\ndescription: b\nproperties:\n  typ:\n    type: object\n    properties:\n      x:\n        typ: string\n');
      expect(issueAt(issues, ['properties', 'typ', 'properties', 'x', 'typ'])).toMatchObject({ line: 8, column: 9 });
    });

    it('properties that are not schemas, and required fields that are not properties', () => {
      const issues = issuesOf('name: a\ndescription: b\nproperties:\n  topic: string\nrequired: [topic]\n');
      expect(issueAt(issues, ['properties', 'topic']).message).toMatch(/JSON schema/);
      const missing = issuesOf('name: a\ndescription: b\nproperties:\n  topic: {type: string}\nrequired: [topc]\n');
      expect(issueAt(missing, ['required', 0])).toMatchObject({ line: 5, column: 12 });
    });

    it('structured output without properties', () => {
      const issues = issuesOf('name: a\ndescription: b\nstructured_output: true\n');
      expect(issueAt(issues, ['structured_output']).message).toMatch(/at least one field/);
    });

    it('with a message that names the first problem and counts the rest', () => {
      expect(() => parseAgentYaml('name: a\ndescription: b\ntoolz: []\nmodle: x\n')).toThrow(
        /^Invalid agent YAML: toolz: unknown key "toolz".*\(line 3, column 1\) \(and 1 more\)$/,
      );
    });
  });
});

describe('agentContentHash', () => {
  const base = parseAgentYaml(flatYaml);

  it('is a sha256 hex digest', () => {
    expect(agentContentHash(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores comments, whitespace, quoting, flow style and key order', () => {
    const reformatted = `# researcher, reformatted
limits: {total_tokens_limit: 50000, request_limit: 10}
max_iterations: 6
max_tokens: 2000
temperature: 0.2
model: "gpt-4.1-mini"
tools: [{name: search, description: "Query KB using REM"}, {name: action}, {requires_approval: true, server: mail, name: send_email}]
required:
  - topic   # the only required one
properties:
  topic: {description: Primary topic of the question, type: string}
  requires_search: {type: boolean}
description: >-
  You are a research assistant. Search before answering.
version: '1.2.0'
name: researcher
type: object
`;
    expect(agentContentHash(parseAgentYaml(reformatted))).toBe(agentContentHash(base));
  });

  it('changes with the content', () => {
    const changedPrompt = flatYaml.replace('Search before answering.', 'Always search first.');
    expect(agentContentHash(parseAgentYaml(changedPrompt))).not.toBe(agentContentHash(base));
    const defaulted = parseAgentYaml('name: a\ndescription: b\n');
    const explicit = parseAgentYaml('name: a\ndescription: b\nmax_iterations: 11\n');
    expect(agentContentHash(explicit)).not.toBe(agentContentHash(defaulted));
  });

  it('changes when properties are reordered, because the prompt order changes', () => {
    const reordered = { ...base, properties: { requires_search: { type: 'boolean' }, topic: base.properties.topic! } };
    expect(agentContentHash(reordered)).not.toBe(agentContentHash(base));
  });
});
