import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { newUser } from '../support/client.js';
import { chat, useAgentServer } from '../support/agents.js';
import { startTestServer } from '../support/server.js';
import { CreateRoutedSessionDocument, RouteMessageDocument, RoutingRulesDocument, TurnRoutingDocument } from '../generated/graphql.js';

const dir = mkdtempSync(join(tmpdir(), 'remgraph-routing-'));
mkdirSync(join(dir, 'agents'));
for (const [name, description] of [
  ['billing', 'You handle invoices, payments and refunds.'],
  ['support', 'You solve technical problems with the product.'],
  ['pharmacy', 'You answer questions about medicine availability.'],
]) {
  writeFileSync(join(dir, 'agents', `${name}.yaml`), `name: ${name}\ndescription: ${description}\n`);
}
writeFileSync(
  join(dir, 'routing.yaml'),
  `routing:
  rules:
    - name: ceo
      match: { sender_email: ceo@acme.com }
      route: agent
      profile: support
    - name: acme-invoices
      match:
        sender_domain: acme.com
        subject_contains: invoice
      route: agent
      profile: billing
      model: openai:fake-model
    - name: urgent
      match:
        header_match: { X-Priority: "^(1|high)$" }
      route: agent
      profile: support
    - name: pharmacy-mail
      match: { forwarded_from: info@pharmacy.example }
      preprocessor: email
      route: agent
      profile: pharmacy
`,
);
writeFileSync(
  join(dir, 'bad-routing.yaml'),
  'routing:\n  rules:\n    - name: x\n      match: { sender_domain: "not a domain" }\n      route: agent\n      profile: billing\n',
);

const env = useAgentServer({ ROUTING_FILE: join(dir, 'routing.yaml'), AGENTS_DIR: join(dir, 'agents') });

const RAW_EMAIL = [
  'From: Pharmacy Desk <info@pharmacy.example>',
  'To: orders@us.example',
  'Subject: Ibuprofen',
  '  400 in stock?',
  '',
  'Do you have ibuprofen 400 for Mrs. Novak?',
].join('\r\n');

describe('rule-based routing', () => {
  it('lists the loaded rules in order', async () => {
    const user = newUser(env.server.url);
    const { routingRules } = await user.data(RoutingRulesDocument);
    expect(routingRules.map((r) => [r.name, r.route, r.profile, r.preprocessor])).toEqual([
      ['ceo', 'agent', 'support', 'passthrough'],
      ['acme-invoices', 'agent', 'billing', 'passthrough'],
      ['urgent', 'agent', 'support', 'passthrough'],
      ['pharmacy-mail', 'agent', 'pharmacy', 'email'],
    ]);
    expect(routingRules[1]).toMatchObject({
      model: 'openai:fake-model',
      match: { all: false, senderDomain: 'acme.com', subjectContains: 'invoice', headerMatch: [] },
    });
    expect(routingRules[2]!.match.headerMatch).toEqual([{ header: 'x-priority', pattern: '^(1|high)$' }]);
  });

  it('answers routeMessage for every condition, first match first, without running or storing anything', async () => {
    const user = newUser(env.server.url);
    const dry = async (metadata: Record<string, unknown>, content = 'hello') =>
      (await user.data(RouteMessageDocument, { input: { content, metadata } })).routeMessage;
    expect(await dry({ sender: 'CEO <ceo@acme.com>', subject: 'invoice' })).toMatchObject({ agent: 'support', routedBy: 'RULE', rule: 'ceo' });
    expect(await dry({ sender: 'ap@acme.com', subject: 'Invoice 7' })).toMatchObject({
      agent: 'billing',
      routedBy: 'RULE',
      rule: 'acme-invoices',
      model: 'openai:fake-model',
    });
    expect(await dry({ sender: 'ap@acme.com', subject: 'lunch' })).toMatchObject({ agent: 'general', routedBy: 'DEFAULT', rule: null });
    expect(await dry({ headers: { 'X-Priority': 'High' } })).toMatchObject({ rule: 'urgent' });
    expect(await dry({ headers: { 'Reply-To': 'info@pharmacy.example' } })).toMatchObject({ rule: 'pharmacy-mail', agent: 'pharmacy' });
    const email = await dry({}, RAW_EMAIL);
    expect(email).toMatchObject({ rule: 'pharmacy-mail', fields: { sender: 'info@pharmacy.example', subject: 'Ibuprofen 400 in stock?' } });
    expect(email.fields.headers).toMatchObject({ to: 'orders@us.example' });
    expect(await dry({ sender: 'someone@else.example' })).toMatchObject({ agent: 'general', routedBy: 'DEFAULT', rule: null });
    expect(await env.server.db.prisma.session.count({ where: { userId: user.headers['x-user-id'] } })).toBe(0);
    expect(env.fake.chatRequests).toHaveLength(0);
  });

  it('answers bad routeMessage input with typed errors', async () => {
    const user = newUser(env.server.url);
    const code = async (variables: { input: { content: string; metadata?: unknown; agent?: string; sessionId?: string } }) =>
      (await user.request(RouteMessageDocument, variables)).body.errors?.[0]?.extensions?.code;
    expect(await code({ input: { content: '  ' } })).toBe('VALIDATION_FAILED');
    expect(await code({ input: { content: 'hi', metadata: { sender: 'x'.repeat(20_000) } } })).toBe('VALIDATION_FAILED');
    expect(await code({ input: { content: 'hi', agent: 'no-such-agent' } })).toBe('NOT_FOUND');
    expect(await code({ input: { content: 'hi', sessionId: encodeGlobalID('Session', '00000000-0000-4000-8000-000000000000') } })).toBe('NOT_FOUND');
  });

  it('runs the rule’s agent on the preprocessed email and keeps the fields it read on the message', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Yes, 12 packs.' });
    const { sent } = await chat(env.server.url, user, { content: RAW_EMAIL });
    const { turn } = await user.data(TurnRoutingDocument, { id: sent.turn.id });
    expect(turn).toMatchObject({ agent: 'pharmacy', routedBy: 'RULE', routingRule: 'pharmacy-mail', status: 'COMPLETED' });
    const stored = turn!.session.messages.edges[0]!.node;
    expect(stored.content).toBe(RAW_EMAIL);
    expect(stored.metadata).toMatchObject({
      sender: 'info@pharmacy.example',
      subject: 'Ibuprofen 400 in stock?',
      forwarded_from: null,
      headers: { to: 'orders@us.example' },
    });
    const request = env.fake.chatRequests[0]!.body;
    expect(request.messages[0].content).toMatch(/medicine availability/);
    expect(request.messages.at(-1)).toEqual({
      role: 'user',
      content: 'From: Pharmacy Desk <info@pharmacy.example>\nSubject: Ibuprofen 400 in stock?\n\nDo you have ibuprofen 400 for Mrs. Novak?',
    });
  });

  it('records EXPLICIT, HEADER, SESSION and DEFAULT on turns', async () => {
    const user = newUser(env.server.url);
    const routedBy = async (caller: typeof user, input: Parameters<typeof chat>[2]) => {
      env.fake.enqueue({ text: 'ok' });
      const { sent } = await chat(env.server.url, caller, input);
      const { turn } = await caller.data(TurnRoutingDocument, { id: sent.turn.id });
      return [turn!.agent, turn!.routedBy, turn!.routingRule];
    };
    expect(await routedBy(user, { content: 'hi', agent: 'billing', metadata: { sender: 'ceo@acme.com' } })).toEqual(['billing', 'EXPLICIT', null]);
    const headerUser = newUser(env.server.url, undefined, { 'x-agent-schema': 'support' });
    expect(await routedBy(headerUser, { content: 'hi', metadata: { sender: 'ceo@acme.com' } })).toEqual(['support', 'HEADER', null]);
    expect(await routedBy(user, { content: 'hi' })).toEqual(['general', 'DEFAULT', null]);
    const created = await user.data(CreateRoutedSessionDocument, { input: { agent: 'billing' } });
    if (created.createSession.__typename !== 'CreateSessionSuccess') throw new Error('no session');
    expect(await routedBy(user, { content: 'hi', sessionId: created.createSession.session.id })).toEqual(['billing', 'SESSION', null]);
    expect(await routedBy(user, { content: 'hi', sessionId: created.createSession.session.id, metadata: { sender: 'ceo@acme.com' } })).toEqual([
      'support',
      'RULE',
      'ceo',
    ]);
  });
});

describe('the routing classifier', () => {
  it('chooses a routing session’s active agent, keeps it until it names another, and ignores unknown names', async () => {
    const user = newUser(env.server.url);
    const created = await user.data(CreateRoutedSessionDocument, { input: { routing: true } });
    if (created.createSession.__typename !== 'CreateSessionSuccess') throw new Error('no session');
    const sessionId = created.createSession.session.id;
    expect(created.createSession.session).toMatchObject({ routing: true, activeAgent: null });

    const turnOf = async (content: string, classifier: unknown) => {
      env.fake.enqueue({ json: classifier }, { text: 'answer' });
      const { sent } = await chat(env.server.url, user, { content, sessionId });
      return (await user.data(TurnRoutingDocument, { id: sent.turn.id })).turn!;
    };
    const first = await turnOf('I was charged twice', { agent: 'billing', reason: 'a payment problem' });
    expect(first).toMatchObject({ agent: 'billing', routedBy: 'CLASSIFIER', session: { activeAgent: 'billing' } });
    const classifierRequest = env.fake.chatRequests[0]!.body;
    expect(classifierRequest.response_format.json_schema.name).toBe('router');
    const asked = classifierRequest.messages.at(-1).content as string;
    expect(asked).toMatch(/^Current agent: \(none yet\)\nAgents:\n/);
    expect(asked).toContain('- billing: You handle invoices, payments and refunds.');
    expect(asked).not.toMatch(/- (router|dreaming|answer-quality):/);
    expect(asked).toMatch(/Message:\nI was charged twice$/);
    expect(env.fake.chatRequests[1]!.body.messages[0].content).toMatch(/invoices, payments/);

    const kept = await turnOf('and the refund?', { agent: 'no-such-agent', reason: 'confused' });
    expect(kept).toMatchObject({ agent: 'billing', routedBy: 'CLASSIFIER', session: { activeAgent: 'billing' } });
    expect(env.fake.chatRequests[2]!.body.messages.at(-1).content).toMatch(/^Current agent: billing\n/);

    const dry = (await user.data(RouteMessageDocument, { input: { content: 'anything', sessionId } })).routeMessage;
    expect(dry).toMatchObject({ agent: 'billing', routedBy: 'CLASSIFIER', rule: null });

    const switched = await turnOf('the app crashes on login', { agent: 'support', reason: 'technical' });
    expect(switched).toMatchObject({ agent: 'support', routedBy: 'CLASSIFIER', session: { activeAgent: 'support' } });

    // A rule still wins in a routing session, and does not change the active agent.
    env.fake.enqueue({ text: 'ok' });
    const { sent } = await chat(env.server.url, user, { content: 'x', sessionId, metadata: { sender: 'ap@acme.com', subject: 'invoice' } });
    const ruled = (await user.data(TurnRoutingDocument, { id: sent.turn.id })).turn!;
    expect(ruled).toMatchObject({ agent: 'billing', routedBy: 'RULE', routingRule: 'acme-invoices', session: { activeAgent: 'support' } });
  });
});

describe('start-up', () => {
  it('refuses an invalid routing file, naming the line and column', async () => {
    await expect(startTestServer({ ROUTING_FILE: join(dir, 'bad-routing.yaml') })).rejects.toThrow(
      /ROUTING_FILE .*bad-routing\.yaml: routing\.rules\.0\.match\.sender_domain: must be a domain, e\.g\. example\.com \(line 4, column 31\)/,
    );
  });
});
