import { useEffect, useState } from 'preact/hooks';
import { request } from '../api.js';
import {
  WebInboundEmailDocument,
  WebInboundEmailsDocument,
  type WebInboundEmailQuery,
  type WebInboundEmailsQuery,
  type WebPendingApprovalFragment,
} from '../generated/graphql.js';
import { DraftItem } from './email-draft.js';
import { EscalationBox } from './email-escalation.js';
import { InboxItem } from './inbox.js';

type Listed = Extract<WebInboundEmailsQuery['inboundEmails'], { __typename: 'InboundEmailsSuccess' }>['data']['edges'][number]['node'];
type Detail = NonNullable<WebInboundEmailQuery['inboundEmail']>;

interface Props {
  /** The caller's pending approvals: those in the opened email's session are its own (send_reply waiting). */
  pending: WebPendingApprovalFragment[];
  onDecided(): Promise<void>;
  onOpenSession(sessionId: string): void;
  onProblem(message: string): void;
  onClose(): void;
}

/** The session an approval waits in, as the row id an email names it by (the approval's is a global id). */
const sessionRowId = (approval: WebPendingApprovalFragment) => atob(approval.session.id).replace(/^Session:/, '');

/**
 * The inbound email view (admins: the shared inbox): the emails with their route and status (all,
 * or those escalated to a person, with the reason); an email's escalation to resolve, body, jobs,
 * events in order, drafts (to edit, send or discard) and replies, the approval its turn waits for,
 * and the session it ran in.
 */
export function EmailPanel({ pending, onDecided, onOpenSession, onProblem, onClose }: Props) {
  const [emails, setEmails] = useState<Listed[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [detail, setDetail] = useState<Detail | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Every email, or only those escalated to a person.
  const [escalated, setEscalated] = useState(false);
  const [listed, setListed] = useState(0);

  useEffect(() => {
    request(WebInboundEmailsDocument, { status: escalated ? 'ESCALATED' : null })
      .then(({ inboundEmails: result }) =>
        result.__typename === 'InboundEmailsSuccess' ? setEmails(result.data.edges.map((e) => e.node)) : setError(result.message),
      )
      .catch((e: Error) => setError(e.message));
  }, [escalated, listed]);

  // Reloaded when an approval is decided, and every second while its job works: what the email's
  // turn did next shows up here.
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!open) return;
    request(WebInboundEmailDocument, { id: open })
      .then((data) => setDetail(data.inboundEmail))
      .catch((e: Error) => setError(e.message));
  }, [open, pending, tick]);
  const waiting = detail?.sessionId ? pending.filter((a) => sessionRowId(a) === detail.sessionId) : [];
  // Still being worked: queued, running, or decided and about to run on.
  const working = detail?.status === 'RECEIVED' || detail?.status === 'PROCESSING' || (detail?.status === 'AWAITING_APPROVAL' && waiting.length === 0);
  useEffect(() => {
    if (!working) return;
    const timer = setTimeout(() => setTick((n) => n + 1), 1000);
    return () => clearTimeout(timer);
  }, [working, detail]);

  return (
    <section class="overlay emails" data-testid="emails">
      <div class="overlay-head">
        <h2>Inbound email</h2>
        <button class="icon" title="Close" onClick={onClose}>
          ✕
        </button>
      </div>
      {error && <div class="error">{error}</div>}
      <div class="email-filter" role="group">
        <button class={escalated ? '' : 'current'} onClick={() => setEscalated(false)} data-testid="email-filter-all">
          All
        </button>
        <button class={escalated ? 'current' : ''} onClick={() => setEscalated(true)} data-testid="email-filter-escalated">
          Escalated
        </button>
      </div>
      {emails?.length === 0 && <p class="hint">{escalated ? 'Nothing is escalated to you.' : 'No email has come in.'}</p>}
      <ul class="email-list">
        {emails?.map((email) => (
          <li key={email.id}>
            <button class={open === email.id ? 'current' : ''} onClick={() => setOpen(email.id)} data-testid="email" data-status={email.status}>
              <strong>{email.subject ?? '(no subject)'}</strong> <span class="meta">{email.from}</span>
              <span class="meta">
                {' '}
                · {email.profile ? `${email.route}: ${email.profile}` : email.route} · <span data-testid="email-status">{email.status}</span>
              </span>
              {email.status === 'ESCALATED' && email.escalationReason && (
                <span class="email-reason" data-testid="email-reason">
                  {email.escalationReason}
                </span>
              )}
            </button>
          </li>
        ))}
      </ul>
      {detail && (
        <article class="email-detail" data-testid="email-detail">
          <h3>{detail.subject ?? '(no subject)'}</h3>
          <p class="meta">
            From {detail.fromName ? `${detail.fromName} <${detail.from}>` : detail.from}
            {detail.to ? ` to ${detail.to}` : ''} · {new Date(detail.createdAt).toLocaleString()}
          </p>
          <p class="meta" data-testid="email-route">
            {detail.route}
            {detail.rule ? ` by rule ${detail.rule}` : ''}
            {detail.profile ? ` → profile ${detail.profile}` : ''} · <strong>{detail.status}</strong>
            {detail.sessionId && (
              <>
                {' '}
                ·{' '}
                <button class="link" onClick={() => onOpenSession(btoa(`Session:${detail.sessionId}`))} data-testid="email-session">
                  Open its session
                </button>
              </>
            )}
          </p>
          {detail.status === 'ESCALATED' && (
            <EscalationBox
              key={detail.id}
              emailId={detail.id}
              reason={detail.escalationReason ?? null}
              onResolved={() => {
                setTick((n) => n + 1);
                setListed((n) => n + 1);
              }}
              onProblem={onProblem}
            />
          )}
          <pre class="email-text" data-testid="email-text">
            {detail.text}
          </pre>
          {waiting.length > 0 && (
            <>
              <h4>Waiting for you</h4>
              <ul data-testid="email-approvals">
                {waiting.map((approval) => (
                  <InboxItem key={approval.id} approval={approval} onDecided={onDecided} onOpen={onOpenSession} onProblem={onProblem} />
                ))}
              </ul>
            </>
          )}
          <h4>Drafts</h4>
          {detail.drafts.length === 0 ? (
            <p class="meta">No draft.</p>
          ) : (
            <ul data-testid="email-drafts">
              {detail.drafts.map((draft) => (
                <DraftItem key={draft.id} draft={draft} onChanged={() => setTick((n) => n + 1)} onProblem={onProblem} />
              ))}
            </ul>
          )}
          {detail.replies.length > 0 && (
            <>
              <h4>Sent</h4>
              <ul data-testid="email-replies">
                {detail.replies.map((reply) => (
                  <li key={reply.messageId}>
                    <strong>{reply.subject}</strong>{' '}
                    <span class="meta">
                      to {reply.to} · {new Date(reply.sentAt).toLocaleString()}
                      {reply.status !== 'SENT' && <strong> · {reply.status === 'UNKNOWN' ? 'delivery unknown' : 'sending'}</strong>}
                    </span>
                  </li>
                ))}
              </ul>
            </>
          )}
          <h4>Jobs</h4>
          <ul class="meta" data-testid="email-jobs">
            {detail.jobs.map((job) => (
              <li key={job.id}>
                {job.kind} · {job.status} · attempt {job.attempts}
                {job.error ? ` · ${(job.error as { message?: string }).message ?? ''}` : ''}
              </li>
            ))}
          </ul>
          <h4>Events</h4>
          <ol class="meta" data-testid="email-events">
            {detail.events.map((event, i) => (
              <li key={i} data-kind={event.kind}>
                {new Date(event.createdAt).toLocaleTimeString()} <strong>{event.kind}</strong> <code>{JSON.stringify(event.detail)}</code>
              </li>
            ))}
          </ol>
        </article>
      )}
    </section>
  );
}
