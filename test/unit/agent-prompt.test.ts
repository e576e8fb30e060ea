import { describe, expect, it } from 'vitest';
import { buildRequestInstructions, buildSystemPrompt, structuredOutputSchema } from '../../src/agents/prompt.js';
import { parseAgentYaml } from '../../src/agents/spec.js';

const general = parseAgentYaml(`
name: general
description: |
  You are a friendly assistant with access to a knowledge base.
  Search before making claims about the user's data.
properties:
  user_intent:
    type: string
    description: "Classify: question, task, greeting, follow-up"
  topic:
    type: string
    description: Primary topic the user is asking about
tools:
  - name: search
    description: Query knowledge base using REM dialect
  - name: action
  - name: remind_me
    description: Create scheduled reminders
`);

describe('buildSystemPrompt', () => {
  it('renders description, Tool Notes and Thinking Structure in that order, as p8 does', () => {
    expect(buildSystemPrompt(general)).toBe(
      [
        "You are a friendly assistant with access to a knowledge base.\nSearch before making claims about the user's data.",
        '## Tool Notes\n- **search**: Query knowledge base using REM dialect\n- **remind_me**: Create scheduled reminders',
        [
          '## Thinking Structure',
          '',
          'Use these to guide your reasoning. Do NOT include these labels in output:',
          '',
          '```yaml',
          'user_intent: string',
          '  # Classify: question, task, greeting, follow-up',
          'topic: string',
          '  # Primary topic the user is asking about',
          '```',
          '',
          'CRITICAL: Respond with conversational text only. Do NOT output field names, YAML, or JSON.',
        ].join('\n'),
      ].join('\n\n'),
    );
  });

  it('lists only tools that have a description, and omits Tool Notes when none has', () => {
    const prompt = buildSystemPrompt(general);
    expect(prompt).not.toContain('**action**');
    const bare = parseAgentYaml('name: a\ndescription: Hi.\ntools: [search, action]\n');
    expect(buildSystemPrompt(bare)).toBe('Hi.');
  });

  it('renders required markers, enums, nested objects and arrays of objects', () => {
    const spec = parseAgentYaml(`
name: nested
description: Think.
properties:
  intent:
    type: string
    enum: [question, task]
    description: |
      What the user wants,
      in one word
  confidence:
    type: number
  place:
    type: object
    description: Where it happens
    properties:
      city: {type: string}
      country: {type: string, description: ISO code}
    required: [country]
  people:
    type: array
    description: Who is involved
    items:
      type: object
      properties:
        name: {type: string}
      required: [name]
  tags:
    type: array
    items: {type: string}
  anything:
    description: Free-form
required: [intent]
`);
    const prompt = buildSystemPrompt(spec);
    const yamlBlock = prompt.slice(prompt.indexOf('```yaml\n') + 8, prompt.lastIndexOf('\n```'));
    expect(yamlBlock).toBe(
      [
        'intent: string (one of: question, task) (required)',
        '  # What the user wants, in one word',
        'confidence: number',
        'place:',
        '  # Where it happens',
        '  city: string',
        '  country: string (required)',
        '    # ISO code',
        'people: [object]',
        '  # Who is involved',
        '  # Each item:',
        '    name: string (required)',
        'tags: [string]',
        'anything: any',
        '  # Free-form',
      ].join('\n'),
    );
  });

  it('has no Thinking Structure in structured mode', () => {
    const structured = parseAgentYaml(`
name: extractor
description: Extract.
structured_output: true
properties:
  answer: {type: string}
tools:
  - name: search
    description: Look things up
`);
    const prompt = buildSystemPrompt(structured);
    expect(prompt).not.toContain('## Thinking Structure');
    expect(prompt).toBe('Extract.\n\n## Tool Notes\n- **search**: Look things up');
  });

  it('has no Thinking Structure without properties', () => {
    expect(buildSystemPrompt(parseAgentYaml('name: a\ndescription: Hi.\n'))).toBe('Hi.');
  });
});

describe('structuredOutputSchema', () => {
  const structured = parseAgentYaml(`
type: object
description: You are a judge. This must not reach the response schema.
properties:
  score:
    type: number
    description: Between 0 and 1
  pass:
    type: boolean
required: [score, pass]
json_schema_extra:
  kind: evaluator
  name: judge
  structured_output: true
`);

  it('builds an OpenAI json_schema response_format from properties and required', () => {
    expect(structuredOutputSchema(structured)).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'judge',
        schema: {
          type: 'object',
          properties: { score: { type: 'number', description: 'Between 0 and 1' }, pass: { type: 'boolean' } },
          required: ['score', 'pass'],
        },
      },
    });
  });

  it('strips the top-level description but keeps field descriptions', () => {
    const format = structuredOutputSchema(structured);
    expect(format?.json_schema.schema).not.toHaveProperty('description');
    expect(JSON.stringify(format)).not.toContain('You are a judge');
    expect(JSON.stringify(format)).toContain('Between 0 and 1');
  });

  it('does not share objects with the spec', () => {
    const format = structuredOutputSchema(structured);
    (format?.json_schema.schema.properties as Record<string, unknown>).score = 'mutated';
    expect(structured.properties.score).toEqual({ type: 'number', description: 'Between 0 and 1' });
  });

  it('is undefined for conversational agents', () => {
    expect(structuredOutputSchema(general)).toBeUndefined();
  });
});

describe('buildRequestInstructions', () => {
  const now = new Date('2026-02-21T14:30:05.123Z');

  it('carries date, UTC time, user, session, agent and the added instruction', () => {
    expect(
      buildRequestInstructions({
        now,
        userId: 'user-1',
        sessionId: 'sess-123',
        agentName: 'general',
        addedInstruction: '  Always respond in haiku form \n',
      }),
    ).toBe(
      [
        '[Context]',
        'Date: 2026-02-21',
        'Time (UTC): 2026-02-21T14:30:05Z',
        'User ID: user-1',
        'Session: sess-123',
        'Agent: general',
        '',
        'Always respond in haiku form',
      ].join('\n'),
    );
  });

  it('leaves out what the request does not have', () => {
    const text = buildRequestInstructions({ now, userId: null, sessionId: undefined, agentName: 'sample', addedInstruction: '   ' });
    expect(text).toBe('[Context]\nDate: 2026-02-21\nTime (UTC): 2026-02-21T14:30:05Z\nAgent: sample');
  });
});
