import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/inbound/signature.js';
import { caller } from '../support/client.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { pharmacyInboxEnv } from '../support/pharmacy-inbox.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { tempDataDir } from '../support/server.js';
import { startSmtpSink } from '../support/smtp-sink.js';
import { ApprovalsDocument, DecideApprovalDocument, InboundEmailDocument, ResolveEmailEscalationDocument } from '../generated/graphql.js';
import { databaseUrl } from '../support/database-url.js';

const SECRET = 'inbound-restart-secret-0123456789';

let fake: FakeOpenAI;
const running: ServerProcess[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake?.close();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop('SIGKILL')));
  const pending = fake.pending;
  fake.reset();
  expect(pending, 'every scripted model reply was used').toBe(0);
});

/** One database for the servers of a test: the same PGlite directory, or the same PostgreSQL database. */
async function database(): Promise<Record<string, string>> {
  const url = databaseUrl();
  return url ? { DATABASE_URL: url } : { DATA_DIR: await tempDataDir() };
}

async function start(env: Record<string, string>) {
  // Generous: each start loads the server and the example MCP server anew, on two shared cores.
  const server = await spawnServer(
    {
      ...pharmacyInboxEnv(fake.url, SECRET),
      SWEEP_INTERVAL_MS: '100',
      TURN_HEARTBEAT_MS: '200',
      ...env,
    },
    300_000,
  );
  running.push(server);
  return server;
}

/** A Crisp forward: the seed's `forwarded_from` rule routes it to the pharmacy profile (an agent_process job). */
function crispEmail(messageId: string) {
  return [
    'From: Dostupnost leku <info@dostupnost-leku.cz>',
    'To: podpora@dostupnost-leku.cz',
    'Subject: Dotaz na Paralen',
    `Message-ID: ${messageId}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Nová zpráva od Petr Svoboda (petr.svoboda@example.cz)',
    '',
    'Zpráva:',
    'Máte Paralen 500?',
  ].join('\r\n');
}

async function deliver(server: ServerProcess, body: string): Promise<string> {
  const res = await fetch(server.url.replace('/graphql', '/inbound/email'), {
    method: 'POST',
    headers: { 'content-type': 'message/rfc822', 'x-signature-256': signBody(SECRET, body) },
    body,
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`timed out; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const adminOf = (server: ServerProcess, tenant: string) =>
  caller(server.url, { 'x-user-id': `admin-${randomUUID()}`, 'x-tenant-id': tenant, 'x-roles': 'admin' });

/** Starts a server, delivers the email and kills the server (SIGKILL) while the profile's first model call hangs. */
async function killedMidJob(env: Record<string, string>) {
  const first = await start(env);
  fake.enqueue({ text: 'Hledám…', hang: true });
  const id = await deliver(first, crispEmail(`<${randomUUID()}@crisp.example>`));
  await until(
    async () => fake.chatRequests.length,
    (n) => n === 1,
  );
  await first.stop('SIGKILL');
  return id;
}

describe('inbound email across a crash', () => {
  it('finishes an email whose server was killed mid-job after the restart, once', { timeout: 480_000 }, async () => {
    const tenant = `inbox-${randomUUID()}`;
    const env = { ...(await database()), INBOUND_EMAIL_TENANT: tenant };
    const id = await killedMidJob(env);

    fake.enqueue(
      { toolCalls: [{ name: 'create_draft', arguments: { to: 'petr.svoboda@example.cz', subject: 'Re: Dotaz na Paralen', body: 'Paralen 500 máme.' } }] },
      { text: 'Koncept připraven.' },
    );
    const second = await start(env);
    const admin = adminOf(second, tenant);
    const email = await until(
      async () => (await admin.data(InboundEmailDocument, { id })).inboundEmail!,
      (e) => e.status !== 'RECEIVED' && e.status !== 'PROCESSING',
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${second.output()}`);
    });

    expect(email.status).toBe('DONE');
    expect(email.drafts).toEqual([expect.objectContaining({ to: 'petr.svoboda@example.cz', body: 'Paralen 500 máme.', status: 'PENDING' })]);
    // The interrupted call, then the resumed turn's two: no model work done twice beyond the call the kill cut.
    expect(fake.chatRequests).toHaveLength(3);
    // The resumed turn asks what the interrupted one asked: the same prompt and email (the context's clock aside).
    const asked = (i: number) => [fake.chatRequests[i]!.body.messages[0], fake.chatRequests[i]!.body.messages.at(-1)];
    expect(asked(1)).toEqual(asked(0));
    expect(email.events.map((e) => e.kind)).toEqual(['received', 'routed', 'job_started', 'job_started', 'resumed', 'drafted', 'job_finished']);
    expect(email.events[3]!.detail).toMatchObject({ job: 'agent_process', attempt: 2 });
    expect(email.jobs).toEqual([{ kind: 'agent_process', status: 'DONE', attempts: 2, error: null }]);

    // Restarting again finds nothing left to do.
    await second.stop('SIGTERM');
    const third = await start(env);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = (await adminOf(third, tenant).data(InboundEmailDocument, { id })).inboundEmail!;
    expect(after.events).toHaveLength(email.events.length);
    expect(after.drafts).toHaveLength(1);
    expect(fake.chatRequests).toHaveLength(3);
  });

  it('gives up a job whose server died each time it ran (JOB_MAX_ATTEMPTS), without calling the model again', { timeout: 480_000 }, async () => {
    const tenant = `inbox-${randomUUID()}`;
    const env = { ...(await database()), INBOUND_EMAIL_TENANT: tenant, JOB_MAX_ATTEMPTS: '1' };
    const id = await killedMidJob(env);

    const second = await start(env);
    const admin = adminOf(second, tenant);
    const email = await until(
      async () => (await admin.data(InboundEmailDocument, { id })).inboundEmail!,
      (e) => e.jobs[0]?.status === 'FAILED',
    );
    expect(email.jobs).toEqual([
      {
        kind: 'agent_process',
        status: 'FAILED',
        attempts: 2,
        error: { code: 'INTERRUPTED', message: expect.stringContaining('stopped on each of its 1 attempts') },
      },
    ]);
    expect(email.drafts).toEqual([]);
    expect(fake.chatRequests).toHaveLength(1);
    // The email is not left PROCESSING: its job's kind was told the job was given up.
    const failed = await until(
      async () => (await admin.data(InboundEmailDocument, { id })).inboundEmail!,
      (e) => e.status !== 'PROCESSING',
    );
    expect(failed.status).toBe('FAILED');
    expect(failed.events.at(-1)).toMatchObject({
      kind: 'failed',
      detail: { job: 'agent_process', code: 'INTERRUPTED', reason: expect.stringContaining('stopped on each of its 1 attempts') },
    });
  });

  it('keeps one draft when the server was killed after create_draft ran', { timeout: 480_000 }, async () => {
    const tenant = `inbox-${randomUUID()}`;
    const env = { ...(await database()), INBOUND_EMAIL_TENANT: tenant };
    const draft = (body: string) => ({
      toolCalls: [{ name: 'create_draft', arguments: { to: 'petr.svoboda@example.cz', subject: 'Re: Dotaz na Paralen', body } }],
    });
    const first = await start(env);
    fake.enqueue(draft('První verze.'), { text: 'Hotovo…', hang: true });
    const id = await deliver(first, crispEmail(`<${randomUUID()}@crisp.example>`));
    await until(
      async () => fake.chatRequests.length,
      (n) => n === 2,
    );
    await first.stop('SIGKILL');

    fake.enqueue(draft('Druhá verze.'), { text: 'Koncept připraven.' });
    const second = await start(env);
    const email = await until(
      async () => (await adminOf(second, tenant).data(InboundEmailDocument, { id })).inboundEmail!,
      (e) => e.status !== 'RECEIVED' && e.status !== 'PROCESSING',
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${second.output()}`);
    });
    expect(email.status).toBe('DONE');
    // The turn answered again drafted again: the unsent draft was rewritten, not doubled.
    expect(email.drafts).toEqual([expect.objectContaining({ body: 'Druhá verze.', status: 'PENDING' })]);
    expect(email.events.map((e) => e.kind)).toEqual(['received', 'routed', 'job_started', 'drafted', 'job_started', 'resumed', 'drafted', 'job_finished']);
  });

  it(
    'does not mail a reply again when its server was killed while the mail server took it: the delivery is unknown and the email escalated',
    { timeout: 480_000 },
    async () => {
      const smtp = await startSmtpSink({ hold: true });
      try {
        const tenant = `inbox-${randomUUID()}`;
        const env = { ...(await database()), INBOUND_EMAIL_TENANT: tenant, SMTP_URL: smtp.url, MAIL_FROM: 'Podpora <podpora@dostupnost-leku.cz>' };
        const first = await start(env);
        fake.enqueue({
          toolCalls: [{ name: 'send_reply', arguments: { to: 'petr.svoboda@example.cz', subject: 'Re: Dotaz na Paralen', body: 'Paralen 500 máme.' } }],
        });
        const id = await deliver(first, crispEmail(`<${randomUUID()}@crisp.example>`));
        const admin = adminOf(first, tenant);
        await until(
          async () => (await admin.data(InboundEmailDocument, { id })).inboundEmail!,
          (e) => e.events.some((event) => event.kind === 'approval_asked'),
        );
        const { approvals } = await admin.data(ApprovalsDocument, { status: 'PENDING' });
        await admin.data(DecideApprovalDocument, { id: approvals.edges[0]!.node.id, approve: true });
        // The mail server has the whole message but has not said 250 yet: the kill lands between its acceptance and the row's update.
        const [held] = await smtp.received(1, 120_000);
        await first.stop('SIGKILL');

        // The turn answered again does not send again; its model is told nothing new.
        fake.enqueue({ text: 'Odpověď odeslána.' });
        const second = await start(env);
        const email = await until(
          async () => (await adminOf(second, tenant).data(InboundEmailDocument, { id })).inboundEmail!,
          (e) => e.events.at(-1)?.kind === 'job_finished' && e.status !== 'AWAITING_APPROVAL',
        ).catch((error: Error) => {
          throw new Error(`${error.message}\n${second.output()}`);
        });
        expect(email.status).toBe('ESCALATED');
        expect(email.replies).toEqual([expect.objectContaining({ status: 'UNKNOWN', messageId: held!.messageId, to: 'petr.svoboda@example.cz' })]);
        expect(email.escalationReason).toContain(held!.messageId);
        const kinds = email.events.map((e) => e.kind);
        expect(kinds.slice(kinds.indexOf('resumed') - 3)).toEqual(['job_started', 'delivery_unknown', 'escalated', 'resumed', 'job_finished']);
        expect(email.events.find((e) => e.kind === 'delivery_unknown')!.detail).toEqual({ to: 'petr.svoboda@example.cz', messageId: held!.messageId });
        expect(kinds).not.toContain('sent');
        // The receiver saw one message per Message-ID: nothing was mailed again.
        expect(smtp.messages.map((m) => m.messageId)).toEqual([held!.messageId]);

        // A person checks the mailbox and resolves it.
        const resolved = await adminOf(second, tenant).data(ResolveEmailEscalationDocument, { id, note: 'Odpověď dorazila.' });
        expect(resolved.resolveEmailEscalation).toMatchObject({ email: { status: 'DONE' } });
        expect(smtp.messages).toHaveLength(1);
      } finally {
        await smtp.close();
      }
    },
  );
});
