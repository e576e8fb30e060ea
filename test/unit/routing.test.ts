import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { contextOf } from '../support/client.js';
import { parseRoutingYaml } from '../../src/routing/routing-file.js';
import { PREPROCESSORS } from '../../src/routing/preprocessors.js';
import { Router } from '../../src/routing/router.js';
import { ValidationError } from '../../src/errors.js';
import type { Session } from '../../src/db/generated/client.js';

const ctx = contextOf({ headers: { 'x-user-id': 'u1', 'x-tenant-id': 't1' } });

const RULES = `
routing:
  rules:
    - name: ceo
      match: { sender_email: CEO@Acme.com }
      route: agent
      profile: vip
    - name: acme-invoices
      match:
        sender_domain: acme.com
        subject_contains: Invoice
      route: agent
      profile: billing
      model: openai:big
    - name: urgent
      match:
        header_match:
          X-Priority: "^(1|high)$"
          X-Mailer: "outlook"
      route: agent
      profile: urgent
    - name: pharmacy
      match: { forwarded_from: info@pharmacy.example }
      preprocessor: email
      route: agent
      profile: pharmacy
    - name: acme-rest
      match: { sender_domain: acme.com }
      route: pipeline
    - name: catch-all
      match: { all: true }
      route: agent
      profile: general
`;

function router(yaml = RULES) {
  return new Router({} as never, parseRoutingYaml(yaml).rules, { defaultAgent: 'general', classifierAgent: 'router' });
}

const session = (over: Partial<Session>): Session => ({
  id: 's',
  name: 's',
  tenantId: 't1',
  userId: 'u1',
  agent: null,
  routing: false,
  activeAgent: null,
  metadata: {},
  dreamedSeq: 0,
  forkedFromId: null,
  forkedAtMessageId: null,
  documentId: null,
  corpusId: null,
  isEval: false,
  createdAt: new Date(),
  updatedAt: new Date(),
  ...over,
});

async function route(metadata: Record<string, unknown>, content = 'hello', s: Session | null = null, r = router()) {
  const d = await r.decide(ctx, { content, metadata }, s, { classify: false });
  return { agent: d.agent, routedBy: d.routedBy, rule: d.rule };
}

describe('routing rules', () => {
  it('parse in the seed shape, in order', () => {
    const { rules } = parseRoutingYaml(RULES);
    expect(rules.map((r) => [r.name, r.route, r.profile, r.preprocessor])).toEqual([
      ['ceo', 'agent', 'vip', 'passthrough'],
      ['acme-invoices', 'agent', 'billing', 'passthrough'],
      ['urgent', 'agent', 'urgent', 'passthrough'],
      ['pharmacy', 'agent', 'pharmacy', 'email'],
      ['acme-rest', 'pipeline', null, 'passthrough'],
      ['catch-all', 'agent', 'general', 'passthrough'],
    ]);
    expect(rules[0]!.match).toEqual({ senderEmail: 'ceo@acme.com' });
    expect(rules[1]).toMatchObject({ model: 'openai:big', match: { senderDomain: 'acme.com', subjectContains: 'invoice' } });
  });

  it('sender_email matches the address exactly, case-insensitively, inside a display name', async () => {
    expect(await route({ sender: 'The CEO <ceo@ACME.com>' })).toEqual({ agent: 'vip', routedBy: 'RULE', rule: 'ceo' });
    expect(await route({ sender: 'ceo@acme.com.evil.org' })).toMatchObject({ rule: 'catch-all' });
  });

  it('sender_domain and subject_contains must both hold (AND); first match wins', async () => {
    expect(await route({ sender: 'ap@acme.com', subject: 'Your INVOICE 42' })).toEqual({ agent: 'billing', routedBy: 'RULE', rule: 'acme-invoices' });
    // Same domain without the subject falls to the later domain-only rule, which routes to the pipeline (the session's agent).
    expect(await route({ sender: 'ap@acme.com', subject: 'lunch' })).toEqual({ agent: 'general', routedBy: 'RULE', rule: 'acme-rest' });
    expect(await route({ sender: 'ap@acme.com', subject: 'lunch' }, 'hi', session({ agent: 'sample' }))).toEqual({
      agent: 'sample',
      routedBy: 'RULE',
      rule: 'acme-rest',
    });
    // The CEO writes about an invoice: the earlier rule wins.
    expect(await route({ sender: 'ceo@acme.com', subject: 'invoice' })).toMatchObject({ rule: 'ceo' });
    expect(await route({ sender: 'ap@notacme.com', subject: 'invoice' })).toMatchObject({ rule: 'catch-all' });
  });

  it('header_match needs every header to match its pattern (names case-insensitive)', async () => {
    expect(await route({ headers: { 'x-priority': 'HIGH', 'X-Mailer': 'Microsoft Outlook 16' } })).toMatchObject({ rule: 'urgent', agent: 'urgent' });
    expect(await route({ headers: { 'X-Priority': '1' } })).toMatchObject({ rule: 'catch-all' });
    expect(await route({ headers: { 'X-Priority': 'highest', 'X-Mailer': 'outlook' } })).toMatchObject({ rule: 'catch-all' });
  });

  it('forwarded_from reads X-Forwarded-From, Reply-To, the body and the sender', async () => {
    expect(await route({ forwarded_from: 'Pharmacy <info@pharmacy.example>' })).toMatchObject({ rule: 'pharmacy' });
    expect(await route({ headers: { 'Reply-To': 'info@pharmacy.example' } })).toMatchObject({ rule: 'pharmacy' });
    expect(await route({ headers: { 'X-Forwarded-From': 'INFO@pharmacy.example' } })).toMatchObject({ rule: 'pharmacy' });
    expect(await route({}, '---- Forwarded message ----\nFrom: info@pharmacy.example\nDo you have ibuprofen?')).toMatchObject({ rule: 'pharmacy' });
    expect(await route({ sender: 'info@pharmacy.example' })).toMatchObject({ rule: 'pharmacy' });
  });

  it('all: true matches anything; without rules a message goes to the session agent, then the default', async () => {
    expect(await route({})).toEqual({ agent: 'general', routedBy: 'RULE', rule: 'catch-all' });
    const none = router('routing:\n  rules: []\n');
    expect(await route({}, 'hi', session({ agent: 'sample' }), none)).toEqual({ agent: 'sample', routedBy: 'SESSION', rule: null });
    expect(await route({}, 'hi', null, none)).toEqual({ agent: 'general', routedBy: 'DEFAULT', rule: null });
  });

  it('an explicit agent beats the X-Agent-Schema header, which beats the rules', async () => {
    const r = router();
    expect((await r.decide(ctx, { agent: 'sample', content: 'x', metadata: { sender: 'ceo@acme.com' } }, null, { classify: false })).routedBy).toBe('EXPLICIT');
    const header = await r.decide({ ...ctx, agentSchemaUri: 'sample' }, { content: 'x', metadata: { sender: 'ceo@acme.com' } }, null, { classify: false });
    expect([header.agent, header.routedBy]).toEqual(['sample', 'HEADER']);
  });

  it('reports bad files with line and column', () => {
    const bad = `routing:
  rules:
    - name: a
      match: { sender_email: not-an-address }
      route: agent
      profile: billing
    - name: b
      match: {}
      route: agent
    - name: c
      match: { header_match: { X-Priority: "(" } }
      route: agent
      profile: urgent
      colour: red
`;
    let error: ValidationError | undefined;
    try {
      parseRoutingYaml(bad);
    } catch (e) {
      error = e as ValidationError;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect(error!.issues.map((i) => [i.path.join('.'), i.line, i.column])).toEqual([
      ['routing.rules.0.match.sender_email', 4, 30],
      // A missing field is reported where its rule starts.
      ['routing.rules.1.profile', 7, 7],
      ['routing.rules.1.match', 8, 14],
      ['routing.rules.2.colour', 14, 7],
    ]);
    expect(error!.message).toMatch(
      /^Invalid routing file: routing\.rules\[0\]\.match\.sender_email: must be an email address \(line 4, column 30\) \(and 3 more\)/,
    );
    expect(() =>
      parseRoutingYaml(`routing:\n  rules:\n    - name: c\n      match: { header_match: { X-P: "(" } }\n      route: agent\n      profile: u\n`),
    ).toThrow(/header_match\.X-P: not a valid regular expression.*line 4, column 37/);
    expect(() => parseRoutingYaml('routing: [')).toThrow(/YAML syntax/);
  });
});

describe('the email preprocessor', () => {
  const raw = [
    'From: "Pharmacy Desk" <Info@Pharmacy.example>',
    'To: support@us.example',
    'Subject: Availability of',
    '  ibuprofen 400',
    'X-Forwarded-From: desk@pharmacy.example',
    '',
    'Hello, do you have ibuprofen?',
  ].join('\r\n');

  it('fills sender, subject (unfolded), headers and forwarded_from from a raw message', () => {
    const { fields, content } = PREPROCESSORS.email(raw, { subject: 'ignored: the message has one' });
    expect(fields).toMatchObject({
      sender: 'info@pharmacy.example',
      subject: 'Availability of ibuprofen 400',
      forwardedFrom: 'desk@pharmacy.example',
      body: 'Hello, do you have ibuprofen?',
    });
    expect(fields.headers.to).toBe('support@us.example');
    expect(content).toBe('From: "Pharmacy Desk" <Info@Pharmacy.example>\nSubject: Availability of ibuprofen 400\n\nHello, do you have ibuprofen?');
  });

  it('passes content without a header block through', () => {
    expect(PREPROCESSORS.email('just text: with a colon\n\nbody', { sender: 'a@b.example' })).toMatchObject({
      content: 'just text: with a colon\n\nbody',
      fields: { sender: 'a@b.example' },
    });
  });
});

describe('the seed file (agent: profiles:)', () => {
  const seed = readFileSync(new URL('../../examples/pharmacy/routing.yaml', import.meta.url), 'utf8');
  const dir = fileURLToPath(new URL('../../examples/pharmacy/', import.meta.url));
  const known = new Set(['search_drugs', 'manage_reservation', 'web_search', 'send_reply', 'create_draft', 'escalate']);
  const checks = { dir, promptExists: existsSync, toolExists: (name: string) => known.has(name), agentExists: () => false };

  it('loads verbatim: the rule without a preprocessor, the pipeline default, the profile with its prompt file resolved relative to the file', () => {
    const { rules, profiles } = parseRoutingYaml(seed, checks);
    expect(rules.map((r) => [r.name, r.route, r.profile])).toEqual([
      ['pharmacy_support', 'agent', 'pharmacy'],
      ['default', 'pipeline', null],
    ]);
    expect(profiles).toEqual([
      {
        name: 'pharmacy',
        model: 'gemini/gemini-2.5-pro',
        maxTokens: 4096,
        temperature: 0.3,
        maxIterations: 10,
        systemPromptFile: join(dir, 'config/prompts/pharmacy.txt'),
        tools: ['search_drugs', 'manage_reservation', 'web_search', 'send_reply', 'create_draft', 'escalate'],
      },
    ]);
  });

  it("gives a profile the seed's defaults and makes a rule without route a pipeline rule", () => {
    const { rules, profiles } = parseRoutingYaml(
      'routing:\n  rules:\n    - name: r\n      match: { all: true }\nagent:\n  profiles:\n    p:\n      system_prompt_file: config/prompts/pharmacy.txt\n      tools: []\n',
      checks,
    );
    expect(rules[0]).toMatchObject({ route: 'pipeline', profile: null });
    expect(profiles[0]).toMatchObject({ model: null, maxTokens: 4096, temperature: 0.3, maxIterations: 10 });
    expect(() => parseRoutingYaml('routing:\n  rules:\n    - name: r\n      match: { all: true }\n      profile: p\n')).toThrow(
      /routing\.rules\[0\]\.profile: a profile is only for route: agent \(a rule without route is pipeline; add route: agent\) \(line 5, column 16\)/,
    );
  });

  it('refuses an unknown tool, a missing prompt file and an unknown profile, each at its line', () => {
    const bad = seed
      .replace('        - web_search\n', '        - web_search\n        - teleport\n')
      .replace('config/prompts/pharmacy.txt', 'config/prompts/missing.txt')
      .replace('profile: pharmacy', 'profile: pharmacist');
    let error: ValidationError | undefined;
    try {
      parseRoutingYaml(bad, checks);
    } catch (e) {
      error = e as ValidationError;
    }
    expect(error!.issues.map((i) => [i.path.join('.'), i.message.replace(dir, '<dir>/'), i.line])).toEqual([
      ['routing.rules.0.profile', 'unknown profile "pharmacist" (not under agent.profiles, and no agent file has that name)', 10],
      ['agent.profiles.pharmacy.system_prompt_file', 'no such file: <dir>/config/prompts/missing.txt', 23],
      ['agent.profiles.pharmacy.tools.3', 'no tool "teleport" (not built in, and no MCP server lists it)', 28],
    ]);
    expect(error!.message).toMatch(
      /^Invalid routing file: routing\.rules\[0\]\.profile: unknown profile "pharmacist" .*\(line 10, column 16\) \(and 2 more\)$/,
    );
  });
});

describe('the crisp preprocessor', () => {
  it('reads Czech and English Crisp forwards into the seed prompt and passes other mail on as email does', () => {
    const czech = PREPROCESSORS.crisp(
      'From: info@dostupnost-leku.cz\nSubject: Dotaz\n\nNová zpráva od Jana Nováková (Jana.Novakova@example.cz)\n\nZpráva:\nMáte Paralen?\nDěkuji\n\n--\nOdesláno přes Crisp',
      {},
    );
    expect(czech.content).toBe('New support inquiry from Jana Nováková (jana.novakova@example.cz):\nSubject: Dotaz\n\nMáte Paralen?\nDěkuji');
    expect(czech.extracted).toEqual({ patient_name: 'Jana Nováková', patient_email: 'jana.novakova@example.cz', original_message: 'Máte Paralen?\nDěkuji' });
    const english = PREPROCESSORS.crisp(
      'From: desk@example.com\nSubject: Stock\n\nName: John Smith\nEmail: john@example.com\nMessage: Is Ventolin in stock?\nReply to this email to answer the customer.',
      {},
    );
    expect(english.extracted).toEqual({ patient_name: 'John Smith', patient_email: 'john@example.com', original_message: 'Is Ventolin in stock?' });
    const plain = PREPROCESSORS.crisp('From: a@b.example\nSubject: Hi\n\nJust a note.', {});
    expect(plain).toEqual(PREPROCESSORS.email('From: a@b.example\nSubject: Hi\n\nJust a note.', {}));
  });
});
