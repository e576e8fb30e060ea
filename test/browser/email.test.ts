import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/inbound/signature.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { pharmacyInboxEnv } from '../support/pharmacy-inbox.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { useChromium } from './chromium.js';

const SECRET = 'inbound-browser-secret-0123456789';
const TENANT = `inbox-${randomUUID()}`;

let fake: FakeOpenAI;
let smtp: SmtpSink;
let server: TestServer;
const browser = useChromium();

beforeAll(async () => {
  [fake, smtp] = await Promise.all([startFakeOpenAI(), startSmtpSink()]);
  server = await startTestServer({
    ...pharmacyInboxEnv(fake.url, SECRET),
    INBOUND_EMAIL_TENANT: TENANT,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Pharmacy Support <support@dostupnost-leku.cz>',
  });
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([fake?.close(), smtp?.close()]);
});

const crispEmail = (messageId: string) =>
  [
    'From: Dostupnost leku <info@dostupnost-leku.cz>',
    'To: podpora@dostupnost-leku.cz',
    'Subject: Dotaz na Ibalgin',
    `Message-ID: ${messageId}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Nová zpráva od Jana Nováková (jana.novakova@example.cz)',
    '',
    'Zpráva:',
    'Máte Ibalgin 400 v Praze?',
  ].join('\r\n');

const admin = { mode: 'headers', userId: `admin-${randomUUID()}`, tenantId: TENANT, roles: 'admin' };

describe('the inbound email view in Chromium', () => {
  it('lists a delivered email with its route and status; opened, shows its body, draft, the send_reply waiting, events and jobs; approving sends it; the draft can be edited and discarded', async () => {
    fake.enqueue(
      { toolCalls: [{ name: 'create_draft', arguments: { to: 'jana.novakova@example.cz', subject: 'Re: Dotaz na Ibalgin', body: 'Ibalgin 400 máme.' } }] },
      { toolCalls: [{ name: 'send_reply', arguments: { to: 'jana.novakova@example.cz', subject: 'Re: Dotaz na Ibalgin', body: 'Dobrý den, máme.' } }] },
    );
    const body = crispEmail(`<${randomUUID()}@crisp.example>`);
    const res = await fetch(server.url.replace('/graphql', '/inbound/email'), {
      method: 'POST',
      headers: { 'content-type': 'message/rfc822', 'x-signature-256': signBody(SECRET, body) },
      body,
    });
    expect(res.status).toBe(202);
    const end = Date.now() + 30_000;
    while ((await server.db.prisma.inboundEmail.findFirstOrThrow({ where: { tenantId: TENANT } })).status !== 'AWAITING_APPROVAL') {
      if (Date.now() > end) throw new Error('the email never waited for the approval');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const page = await browser.open(new URL('/', server.url).href, admin);
    await page.getByTestId('email-toggle').click();
    const listed = page.getByTestId('email');
    await listed.first().waitFor();
    expect(await listed.count()).toBe(1);
    expect(await listed.innerText()).toContain('Dotaz na Ibalgin');
    expect(await listed.innerText()).toContain('info@dostupnost-leku.cz');
    expect(await listed.innerText()).toContain('agent: pharmacy');
    expect(await page.getByTestId('email-status').innerText()).toBe('AWAITING_APPROVAL');

    await listed.click();
    await page.getByTestId('email-detail').waitFor();
    expect(await page.getByTestId('email-route').innerText()).toContain('agent by rule pharmacy_support → profile pharmacy · AWAITING_APPROVAL');
    expect(await page.getByTestId('email-text').innerText()).toContain('Máte Ibalgin 400 v Praze?');
    expect(await page.getByTestId('email-draft').innerText()).toContain('Ibalgin 400 máme.');
    expect(await page.getByTestId('email-draft').getAttribute('data-status')).toBe('PENDING');
    const approval = page.getByTestId('email-approvals').getByTestId('inbox-item');
    await approval.waitFor();
    expect(await approval.innerText()).toContain('send_reply');
    const kinds = await page
      .getByTestId('email-events')
      .locator('li')
      .evaluateAll((items) => items.map((li) => li.getAttribute('data-kind')));
    expect(kinds).toEqual(['received', 'routed', 'job_started', 'drafted', 'approval_asked', 'job_finished']);
    expect(await page.getByTestId('email-jobs').innerText()).toContain('agent_process · DONE');
    await browser.screenshot(page, 'email-view');

    fake.enqueue({ text: 'Odesláno.' });
    await approval.getByRole('button', { name: 'Approve' }).click();
    const [mail] = await smtp.received(1);
    expect(mail!.text?.trim()).toBe('Dobrý den, máme.');
    await page.locator('[data-testid=email-route]', { hasText: '· DONE' }).waitFor();
    expect(await page.getByTestId('email-replies').innerText()).toContain('Re: Dotaz na Ibalgin');
    expect(await page.getByTestId('email-approvals').count()).toBe(0);
    await browser.screenshot(page, 'email-view-sent');

    // The draft the agent left is a person's to review: edited, it is stored as edited; discarded, it stays discarded.
    const draft = page.getByTestId('email-draft');
    await draft.getByTestId('draft-edit').click();
    await draft.getByTestId('draft-body').fill('Ibalgin 400 máme na skladě.');
    await draft.getByTestId('draft-save').click();
    await page.locator('[data-testid=email-draft] pre', { hasText: 'na skladě' }).waitFor();
    expect((await server.db.prisma.emailDraft.findFirstOrThrow({ where: { email: { tenantId: TENANT } } })).body).toBe('Ibalgin 400 máme na skladě.');
    await draft.getByTestId('draft-discard').click();
    await page.locator('[data-testid=email-draft][data-status=DISCARDED]').waitFor();
    expect(await draft.getByTestId('draft-send').count()).toBe(0);
    expect(fake.pending).toBe(0);
    expect(page.problems).toEqual([]);
  });

  it('lists an escalated email under Escalated with its reason; resolving it there updates the view and the stored status and events', async () => {
    const reason = 'Zákaznice hlásí nežádoucí účinek, musí odpovědět lékárník.';
    fake.enqueue({ toolCalls: [{ name: 'escalate', arguments: { reason } }] }, { text: 'Předáno.' });
    const messageId = `<${randomUUID()}@crisp.example>`;
    const body = crispEmail(messageId);
    const res = await fetch(server.url.replace('/graphql', '/inbound/email'), {
      method: 'POST',
      headers: { 'content-type': 'message/rfc822', 'x-signature-256': signBody(SECRET, body) },
      body,
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const emailId = Buffer.from(id, 'base64').toString().replace('InboundEmail:', '');
    const end = Date.now() + 30_000;
    while (!(await server.db.prisma.emailEvent.count({ where: { emailId, kind: 'job_finished' } }))) {
      if (Date.now() > end) throw new Error('the escalated email’s job never finished');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const page = await browser.open(new URL('/', server.url).href, admin);
    await page.getByTestId('email-toggle').click();
    await page.getByTestId('email').first().waitFor();
    expect(await page.getByTestId('email').count()).toBe(2);
    await page.getByTestId('email-filter-escalated').click();
    // The escalated email is in the unfiltered list too: the filter has applied once the other is gone.
    await page.locator('[data-testid=email]:not([data-status=ESCALATED])').waitFor({ state: 'detached' });
    const listed = page.getByTestId('email');
    expect(await listed.count()).toBe(1);
    expect(await listed.getByTestId('email-reason').innerText()).toBe(reason);

    await listed.click();
    const box = page.getByTestId('email-escalation');
    await box.waitFor();
    expect(await box.getByTestId('escalation-reason').innerText()).toBe(reason);
    await browser.screenshot(page, 'email-view-escalated');
    await box.getByTestId('escalation-note').fill('Volal jsem zákaznici.');
    await box.getByTestId('escalation-resolve').click();

    await page.locator('[data-testid=email-route]', { hasText: '· DONE' }).waitFor();
    expect(await page.getByTestId('email-escalation').count()).toBe(0);
    await page.getByText('Nothing is escalated to you.').waitFor();
    expect(await page.locator('[data-testid=email-events] li').last().getAttribute('data-kind')).toBe('resolved');
    const stored = await server.db.prisma.inboundEmail.findUniqueOrThrow({ where: { id: emailId }, include: { events: { orderBy: { id: 'asc' } } } });
    expect(stored.status).toBe('DONE');
    expect(stored.events.at(-1)).toMatchObject({ kind: 'resolved', detail: { by: admin.userId, note: 'Volal jsem zákaznici.' } });
    expect(fake.pending).toBe(0);
    expect(page.problems).toEqual([]);
  });
});
