import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { intakeCommand } from '../../src/cli/intake.js';
import { signBody } from '../../src/inbound/signature.js';
import { caller } from '../support/client.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { pharmacyInboxEnv } from '../support/pharmacy-inbox.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import {
  ApprovalsDocument,
  DecideApprovalDocument,
  InboundEmailDocument,
  InboundEmailsDocument,
  ResolveEmailEscalationDocument,
  SendEmailDraftDocument,
} from '../generated/graphql.js';

const PROMPT = readFileSync(new URL('../../examples/pharmacy/config/prompts/pharmacy.txt', import.meta.url), 'utf8').trim();
const SECRET = 'inbound-test-secret-0123456789';
const TENANT = `inbox-${randomUUID()}`;

let fake: FakeOpenAI;
let smtp: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  [fake, smtp] = await Promise.all([startFakeOpenAI(), startSmtpSink()]);
  server = await startTestServer({
    ...pharmacyInboxEnv(fake.url, SECRET),
    INBOUND_EMAIL_TENANT: TENANT,
    INBOUND_EMAIL_MAX_BYTES: '20000',
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Pharmacy Support <support@dostupnost-leku.cz>',
  });
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([fake?.close(), smtp?.close()]);
});
afterEach(() => {
  expect(fake.pending, 'every scripted model reply was used').toBe(0);
  fake.reset();
});

const inboundUrl = () => server.url.replace('/graphql', '/inbound/email');
const admin = () => caller(server.url, { 'x-user-id': `admin-${randomUUID()}`, 'x-tenant-id': TENANT, 'x-roles': 'admin' });

async function deliver(body: string | Uint8Array, headers: Record<string, string> = {}, sign = true) {
  const res = await fetch(inboundUrl(), {
    method: 'POST',
    headers: { 'content-type': 'message/rfc822', ...(sign ? { 'x-signature-256': signBody(SECRET, body) } : {}), ...headers },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  return { status: res.status, body: (await res.json()) as { id?: string; duplicate?: boolean; error?: { code: string } } };
}

function crispEmail(messageId: string) {
  return [
    'From: Dostupnost leku <info@dostupnost-leku.cz>',
    'To: podpora@dostupnost-leku.cz',
    'Subject: =?UTF-8?Q?Dotaz_na_Ibalgin?=',
    `Message-ID: ${messageId}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    'Nová zpráva od Jana Nováková (jana.novakova@example.cz)',
    '',
    'Zpráva:',
    'Dobrý den, máte Ibalgin 400 v Praze? Chtěla bych si ho rezervovat.',
    '',
    '--',
    'Odpovězte na tento e-mail a odpověď odejde zákazníkovi.',
    'Odesláno přes Crisp · https://app.crisp.chat/website/123',
  ].join('\r\n');
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`timed out; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const emailRow = (messageId: string) => server.db.prisma.inboundEmail.findFirst({ where: { tenantId: TENANT, messageId } });
const emailId = async (messageId: string) => {
  const row = await emailRow(messageId);
  return row && Buffer.from(`InboundEmail:${row.id}`).toString('base64');
};
const eventsOf = async (emailId: string) => (await server.db.prisma.emailEvent.findMany({ where: { emailId }, orderBy: { id: 'asc' } })).map((e) => e.kind);

describe('inbound email', () => {
  it('routes a signed Crisp email by the seed file to the pharmacy profile, drafts, and sends a threaded reply once approved', async () => {
    const messageId = `<${randomUUID()}@crisp.example>`;
    fake.enqueue(
      {
        toolCalls: [
          {
            name: 'create_draft',
            arguments: { to: 'jana.novakova@example.cz', subject: 'Re: Dotaz na Ibalgin', body: 'Ibalgin 400 máme v Praze.' },
          },
        ],
      },
      {
        toolCalls: [
          {
            name: 'send_reply',
            arguments: { to: 'jana.novakova@example.cz', subject: 'Re: Dotaz na Ibalgin', body: 'Dobrý den, Ibalgin 400 je v Lékárně U Anděla.' },
          },
        ],
      },
      { text: 'Odpověď odeslána.' },
    );
    const delivered = await deliver(crispEmail(messageId));
    expect(delivered.status).toBe(202);
    expect(delivered.body).toMatchObject({ duplicate: false });

    const waiting = await until(
      () => emailRow(messageId),
      (e) => e?.status === 'AWAITING_APPROVAL',
    );
    expect(waiting).toMatchObject({ route: 'agent', rule: 'pharmacy_support', profile: 'pharmacy', fromAddress: 'info@dostupnost-leku.cz' });

    // The profile's prompt file, model, temperature and max_tokens reach the model with the Crisp fields.
    const first = fake.chatRequests[0]!.body;
    expect(first).toMatchObject({ model: 'gemini-2.5-pro', temperature: 0.3, max_tokens: 4096 });
    expect(first.messages[0].content).toContain(PROMPT);
    const user = first.messages.find((m: { role: string }) => m.role === 'user').content as string;
    expect(user).toContain('New support inquiry from Jana Nováková (jana.novakova@example.cz):\nSubject: Dotaz na Ibalgin');
    expect(user).toContain('Dobrý den, máte Ibalgin 400 v Praze? Chtěla bych si ho rezervovat.');
    expect(user).not.toMatch(/Odesláno přes Crisp|Nová zpráva od/);
    expect(first.tools.map((t: { function: { name: string } }) => t.function.name).sort()).toEqual([
      'create_draft',
      'escalate',
      'manage_reservation',
      'search_drugs',
      'send_reply',
      'web_search',
    ]);

    // create_draft left a draft; nothing is sent before a person approves.
    expect(await server.db.prisma.emailDraft.findMany({ where: { emailId: waiting!.id } })).toMatchObject([
      { to: 'jana.novakova@example.cz', subject: 'Re: Dotaz na Ibalgin', status: 'PENDING', author: 'pharmacy' },
    ]);
    expect(smtp.messages).toHaveLength(0);

    // The tenant's admins see the shared inbox's approval and decide it.
    const { approvals } = await admin().data(ApprovalsDocument, { status: 'PENDING' });
    expect(approvals.edges.map((e) => e.node.toolName)).toEqual(['send_reply']);
    await admin().data(DecideApprovalDocument, { id: approvals.edges[0]!.node.id, approve: true });

    const [mail] = await smtp.received(1);
    expect(mail).toMatchObject({ subject: 'Re: Dotaz na Ibalgin', inReplyTo: messageId });
    expect(mail!.to).toMatchObject({ value: [{ address: 'jana.novakova@example.cz' }] });
    expect([mail!.references].flat()).toContain(messageId);
    expect(mail!.text?.trim()).toBe('Dobrý den, Ibalgin 400 je v Lékárně U Anděla.');

    const done = await until(
      () => emailRow(messageId),
      (e) => e?.status === 'DONE',
    );
    // The audit, as the tenant's admins read it.
    const { inboundEmail } = await admin().data(InboundEmailDocument, { id: delivered.body.id! });
    expect(inboundEmail).toMatchObject({
      messageId,
      from: 'info@dostupnost-leku.cz',
      subject: 'Dotaz na Ibalgin',
      route: 'agent',
      rule: 'pharmacy_support',
      profile: 'pharmacy',
      status: 'DONE',
      drafts: [{ to: 'jana.novakova@example.cz', status: 'PENDING', author: 'pharmacy' }],
      replies: [{ to: 'jana.novakova@example.cz', inReplyTo: messageId, messageId: mail!.messageId }],
    });
    expect(inboundEmail!.events.map((e) => e.kind)).toEqual([
      'received',
      'routed',
      'job_started',
      'drafted',
      'approval_asked',
      'job_finished',
      'job_started',
      'sent',
      'job_finished',
    ]);
    expect(inboundEmail!.events[1]!.detail).toEqual({ route: 'agent', rule: 'pharmacy_support', profile: 'pharmacy' });
    // Other members of the tenant do not see the shared inbox.
    const member = caller(server.url, { 'x-user-id': 'member', 'x-tenant-id': TENANT });
    expect((await member.data(InboundEmailsDocument, {})).inboundEmails).toMatchObject({ __typename: 'ForbiddenError' });
    expect((await admin().data(InboundEmailsDocument, { status: 'DONE' })).inboundEmails).toMatchObject({
      data: { edges: [{ node: { messageId, status: 'DONE' } }] },
    });
    // Every model call of the turn is in llm_calls as an agent call.
    const calls = await server.db.prisma.llmCall.findMany({ where: { turnId: done!.turnId! } });
    expect(calls.map((c) => c.callType)).toEqual(['agent', 'agent', 'agent']);
  });

  it('keeps one draft and sends one reply per email when the agent drafts and sends twice', async () => {
    const messageId = `<${randomUUID()}@crisp.example>`;
    const draft = (body: string) => ({
      toolCalls: [{ name: 'create_draft', arguments: { to: 'jana.novakova@example.cz', subject: 'Re: Dotaz na Ibalgin', body } }],
    });
    const send = (body: string) => ({
      toolCalls: [{ name: 'send_reply', arguments: { to: 'jana.novakova@example.cz', subject: 'Re: Dotaz na Ibalgin', body } }],
    });
    fake.enqueue(draft('První verze.'), draft('Druhá verze.'), send('Odpověď.'), send('Odpověď znovu.'), { text: 'Hotovo.' });
    const sentBefore = smtp.messages.length;
    const delivered = await deliver(crispEmail(messageId));
    expect(delivered.status).toBe(202);

    const decide = async () => {
      const waiting = await until(
        () => emailRow(messageId),
        (e) => e?.status === 'AWAITING_APPROVAL',
      );
      const { approvals } = await admin().data(ApprovalsDocument, { status: 'PENDING' });
      expect(approvals.edges.map((e) => e.node.toolName)).toEqual(['send_reply']);
      await admin().data(DecideApprovalDocument, { id: approvals.edges[0]!.node.id, approve: true });
      return waiting!;
    };
    const email = await decide();
    // The second create_draft rewrote the unsent draft: one draft, the later text.
    expect(await server.db.prisma.emailDraft.findMany({ where: { emailId: email.id } })).toMatchObject([{ body: 'Druhá verze.', status: 'PENDING' }]);
    await smtp.received(sentBefore + 1);
    await until(
      async () => (await server.db.prisma.approval.count({ where: { sessionId: email.sessionId!, status: 'PENDING' } })) > 0,
      (asked) => asked,
    );
    await decide();
    await until(
      () => emailRow(messageId),
      (e) => e?.status === 'DONE',
    );
    // The second approved send_reply mailed nothing: the email was answered already.
    expect(smtp.messages).toHaveLength(sentBefore + 1);
    expect(await server.db.prisma.sentReply.count({ where: { emailId: email.id } })).toBe(1);
    const results = fake.chatRequests
      .at(-1)!
      .body.messages.filter((m: { role: string }) => m.role === 'tool')
      .map((m: { content: string }) => m.content);
    expect(results.join('\n')).toMatch(/"status":"updated"[\s\S]*"status":"sent"[\s\S]*"status":"already_sent"/);
    expect(await eventsOf(email.id)).toEqual(expect.arrayContaining(['drafted', 'drafted', 'sent']));
    expect((await eventsOf(email.id)).filter((k) => k === 'sent')).toHaveLength(1);
  });

  it('mails once when a send_reply approval and two sends of the email’s draft are decided at the same instant', async () => {
    const messageId = `<${randomUUID()}@crisp.example>`;
    fake.enqueue(
      { toolCalls: [{ name: 'create_draft', arguments: { to: 'jana.novakova@example.cz', subject: 'Re: Dotaz na Ibalgin', body: 'Z konceptu.' } }] },
      { toolCalls: [{ name: 'send_reply', arguments: { to: 'jana.novakova@example.cz', subject: 'Re: Dotaz na Ibalgin', body: 'Od agenta.' } }] },
      { text: 'Hotovo.' },
    );
    const delivered = await deliver(crispEmail(messageId));
    const waiting = await until(
      () => emailRow(messageId),
      (e) => e?.status === 'AWAITING_APPROVAL',
    );
    const draftId = (await admin().data(InboundEmailDocument, { id: delivered.body.id! })).inboundEmail!.drafts[0]!.id;
    const approval = await server.db.prisma.approval.findFirstOrThrow({ where: { sessionId: waiting!.sessionId!, status: 'PENDING' } });
    const approvalId = Buffer.from(`Approval:${approval.id}`).toString('base64');

    const [decided, ...sends] = await Promise.all([
      admin().data(DecideApprovalDocument, { id: approvalId, approve: true }),
      admin().data(SendEmailDraftDocument, { id: draftId }),
      admin().data(SendEmailDraftDocument, { id: draftId }),
    ]);
    expect(decided.decideApproval).toMatchObject({ __typename: 'DecideApprovalSuccess' });
    await until(
      () => emailRow(messageId),
      (e) => e?.status === 'DONE',
    );
    // Exactly one mail reached the mail server for this email, and one reply row, SENT, names it.
    await smtp.received(1);
    const mails = smtp.messages.filter((m) => m.inReplyTo === messageId);
    expect(mails).toHaveLength(1);
    const replies = await server.db.prisma.sentReply.findMany({ where: { emailId: waiting!.id } });
    expect(replies).toMatchObject([{ status: 'SENT', messageId: mails[0]!.messageId }]);
    expect((await eventsOf(waiting!.id)).filter((k) => k === 'sent')).toHaveLength(1);
    // The losers were told: a draft send that lost is refused with a typed error (the draft stays PENDING), and a
    // send_reply that lost answers already_sent (or sending, while the draft's send was under way) to the model.
    const won = sends.filter((r) => r.sendEmailDraft.__typename === 'SendEmailDraftSuccess');
    expect(won.length).toBeLessThanOrEqual(1);
    for (const lost of sends.filter((r) => r.sendEmailDraft.__typename !== 'SendEmailDraftSuccess')) {
      expect(lost.sendEmailDraft).toMatchObject({ __typename: 'ValidationError', message: expect.stringMatching(/already/) });
    }
    const toolResult = fake.chatRequests
      .at(-1)!
      .body.messages.filter((m: { role: string }) => m.role === 'tool')
      .at(-1).content as string;
    if (won.length) {
      expect(replies[0]!.draftId).toBe(Buffer.from(draftId, 'base64').toString().replace('EmailDraft:', ''));
      expect(toolResult).toMatch(/"status":"(already_sent|sending)"/);
    } else {
      expect(replies[0]!.draftId).toBeNull();
      expect(toolResult).toMatch(/"status":"sent"/);
      expect(
        (await server.db.prisma.emailDraft.findUniqueOrThrow({ where: { id: Buffer.from(draftId, 'base64').toString().replace('EmailDraft:', '') } })).status,
      ).toBe('PENDING');
    }
  });

  it('shows an escalated email with its reason among the escalations until an admin resolves it', async () => {
    const messageId = `<${randomUUID()}@crisp.example>`;
    const reason = 'Zákaznice chce reklamovat lék, to musí posoudit lékárník.';
    fake.enqueue({ toolCalls: [{ name: 'escalate', arguments: { reason } }] }, { text: 'Předáno člověku.' });
    const delivered = await deliver(crispEmail(messageId));
    const id = delivered.body.id!;
    const escalated = await until(
      async () => (await admin().data(InboundEmailDocument, { id })).inboundEmail!,
      (e) => e.events.at(-1)?.kind === 'job_finished',
    );
    expect(escalated).toMatchObject({ status: 'ESCALATED', escalationReason: reason });
    const listed = (await admin().data(InboundEmailsDocument, { status: 'ESCALATED' })).inboundEmails;
    expect(listed).toMatchObject({ data: { edges: expect.arrayContaining([expect.objectContaining({ node: expect.objectContaining({ messageId }) })]) } });

    // Only the tenant's admins resolve it; a member is refused and changes nothing.
    const member = caller(server.url, { 'x-user-id': 'member', 'x-tenant-id': TENANT });
    expect((await member.data(ResolveEmailEscalationDocument, { id, note: 'x' })).resolveEmailEscalation).toMatchObject({ __typename: 'ForbiddenError' });
    const resolved = await admin().data(ResolveEmailEscalationDocument, { id, note: 'Zavolal jsem zákaznici.' });
    expect(resolved.resolveEmailEscalation).toMatchObject({ __typename: 'ResolveEmailEscalationSuccess', email: { status: 'DONE' } });
    // Resolved once: again, it is not escalated any more; an unknown email is not found.
    expect((await admin().data(ResolveEmailEscalationDocument, { id })).resolveEmailEscalation).toMatchObject({
      __typename: 'ValidationError',
      message: 'The email is not escalated (it is DONE)',
    });
    const unknown = Buffer.from(`InboundEmail:${randomUUID()}`).toString('base64');
    expect((await admin().data(ResolveEmailEscalationDocument, { id: unknown })).resolveEmailEscalation).toMatchObject({ __typename: 'NotFoundError' });

    const after = (await admin().data(InboundEmailDocument, { id })).inboundEmail!;
    expect(after.status).toBe('DONE');
    expect(after.events.slice(-3).map((e) => e.kind)).toEqual(['escalated', 'job_finished', 'resolved']);
    expect(after.events.at(-1)!.detail).toEqual({ by: expect.stringMatching(/^admin-/), note: 'Zavolal jsem zákaznici.' });
    const still = (await admin().data(InboundEmailsDocument, { status: 'ESCALATED' })).inboundEmails;
    expect(JSON.stringify(still)).not.toContain(messageId);
  });

  it('classifies and drafts an email no agent rule matches (the pipeline), recording classify and draft calls', async () => {
    const messageId = `<${randomUUID()}@customer.example>`;
    fake.enqueue(
      { json: { category: 'question', priority: 'normal', needs_reply: true, summary: 'Asks about opening hours.' } },
      { json: { subject: 'Re: Opening hours', body: 'We are open 8–18 on weekdays.' } },
    );
    const raw = [`From: Petr <petr@customer.example>`, 'Subject: Opening hours', `Message-ID: ${messageId}`, '', 'When are you open?'].join('\r\n');
    expect((await deliver(raw)).status).toBe(202);
    const done = await until(
      () => emailRow(messageId),
      (e) => e?.status === 'DONE',
    );
    expect(done).toMatchObject({ route: 'pipeline', rule: 'default', profile: null, classification: { category: 'question', needs_reply: true } });
    expect(await server.db.prisma.emailDraft.findMany({ where: { emailId: done!.id } })).toMatchObject([
      { to: 'petr@customer.example', subject: 'Re: Opening hours', body: 'We are open 8–18 on weekdays.', author: 'email-drafter' },
    ]);
    expect(await eventsOf(done!.id)).toEqual(['received', 'routed', 'job_started', 'classified', 'job_finished', 'job_started', 'drafted', 'job_finished']);
    const calls = await server.db.prisma.llmCall.findMany({ where: { tenantId: TENANT, turnId: null }, orderBy: { createdAt: 'asc' } });
    expect(calls.map((c) => c.callType)).toEqual(['classify', 'draft']);
    expect(fake.chatRequests[0]!.body.messages.at(-1).content).toContain('When are you open?');

    // A person sends the draft: it goes out threaded on the email, once.
    const draftId = (await admin().data(InboundEmailDocument, { id: (await emailId(messageId))! })).inboundEmail!.drafts[0]!.id;
    expect((await admin().data(SendEmailDraftDocument, { id: draftId })).sendEmailDraft).toMatchObject({ draft: { status: 'SENT' } });
    expect((await admin().data(SendEmailDraftDocument, { id: draftId })).sendEmailDraft).toMatchObject({ __typename: 'ValidationError' });
    const sent = (await smtp.received(2)).at(-1)!;
    expect(sent).toMatchObject({ subject: 'Re: Opening hours', inReplyTo: messageId });
    expect(sent.text?.trim()).toBe('We are open 8–18 on weekdays.');
  });

  it('takes the same Message-ID once, and refuses unsigned, wrongly signed, broken and oversized requests without storing anything', async () => {
    const messageId = `<${randomUUID()}@twice.example>`;
    fake.enqueue({ json: { category: 'feedback', priority: 'low', needs_reply: false, summary: 'Thanks.' } });
    const raw = [`From: fan@twice.example`, 'Subject: Thanks', `Message-ID: ${messageId}`, '', 'Thank you!'].join('\r\n');
    const [a, b] = [await deliver(raw), await deliver(raw)];
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body).toMatchObject({ id: a.body.id, duplicate: true });
    const done = await until(
      () => emailRow(messageId),
      (e) => e?.status === 'DONE',
    );
    expect(await eventsOf(done!.id)).toEqual(['received', 'routed', 'job_started', 'classified', 'job_finished']);

    const count = () => server.db.prisma.inboundEmail.count({ where: { tenantId: TENANT } });
    const before = await count();
    const other = [`From: x@y.example`, 'Subject: hi', `Message-ID: <${randomUUID()}@y.example>`, '', 'hello'].join('\r\n');
    expect((await deliver(other, {}, false)).status).toBe(401);
    expect((await deliver(other, { 'x-signature-256': signBody('another-secret-0123456789', other) })).status).toBe(401);
    expect((await deliver('this is not an email at all')).body.error?.code).toBe('VALIDATION_FAILED');
    expect((await deliver('this is not an email at all')).status).toBe(400);
    expect((await deliver(`${other}\r\n${'x'.repeat(30_000)}`)).status).toBe(413);
    expect(await count()).toBe(before);
  });

  it('reads the JSON and form webhooks of Postmark, SendGrid and Mailgun', async () => {
    fake.enqueue(...Array.from({ length: 3 }, () => ({ json: { category: 'other', priority: 'low', needs_reply: false, summary: 'x' } })));
    const postmark = JSON.stringify({
      From: 'pm@hooks.example',
      FromName: 'Post Mark',
      To: 'inbox@us.example',
      Subject: 'From Postmark',
      TextBody: 'postmark body',
      Headers: [{ Name: 'Message-ID', Value: '<pm-1@hooks.example>' }],
    });
    expect((await deliver(postmark, { 'content-type': 'application/json' })).status).toBe(202);
    const sendgrid = new URLSearchParams({
      from: 'SG <sg@hooks.example>',
      to: 'inbox@us.example',
      subject: 'From SendGrid',
      text: 'sendgrid body',
      headers: 'Message-ID: <sg-1@hooks.example>\nFrom: SG <sg@hooks.example>',
    }).toString();
    expect((await deliver(sendgrid, { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(202);
    const form = new FormData();
    form.set('body-mime', ['From: mg@hooks.example', 'Subject: From Mailgun', 'Message-ID: <mg-1@hooks.example>', '', 'mailgun body'].join('\r\n'));
    const multipart = new Request('http://x', { method: 'POST', body: form });
    const body = Buffer.from(await multipart.arrayBuffer());
    expect((await deliver(body, { 'content-type': multipart.headers.get('content-type')! })).status).toBe(202);
    for (const [id, from, subject, text, source] of [
      ['<pm-1@hooks.example>', 'pm@hooks.example', 'From Postmark', 'postmark body', 'postmark'],
      ['<sg-1@hooks.example>', 'sg@hooks.example', 'From SendGrid', 'sendgrid body', 'sendgrid'],
      ['<mg-1@hooks.example>', 'mg@hooks.example', 'From Mailgun', 'mailgun body', 'mailgun'],
    ]) {
      const row = await until(
        () => emailRow(id!),
        (e) => e?.status === 'DONE',
      );
      expect(row).toMatchObject({ fromAddress: from, subject, text, source });
    }
  });

  it('takes an .eml file from remgraph intake, signed like a webhook', async () => {
    fake.enqueue({ json: { category: 'other', priority: 'low', needs_reply: false, summary: 'x' } });
    const messageId = `<${randomUUID()}@cli.example>`;
    const file = join(await mkdtemp(join(tmpdir(), 'intake-')), 'mail.eml');
    writeFileSync(file, ['From: cli@cli.example', 'Subject: From a file', `Message-ID: ${messageId}`, '', 'Hello from disk.'].join('\r\n'));
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    try {
      expect(await intakeCommand([file, '--url', server.url, '--secret', SECRET])).toBe(0);
      await expect(intakeCommand([file, '--url', server.url, '--secret', 'a-wrong-secret-0123456789'])).rejects.toThrow(/UNAUTHENTICATED/);
    } finally {
      write.mockRestore();
    }
    expect(written.join('')).toMatch(/^\S+ pipeline\n$/);
    const row = await until(
      () => emailRow(messageId),
      (e) => e?.status === 'DONE',
    );
    expect(row).toMatchObject({ fromAddress: 'cli@cli.example', subject: 'From a file', text: 'Hello from disk.', source: 'rfc822' });
  });
});
