import { useCallback, useEffect, useState } from 'preact/hooks';
import { request, subscribe } from '../api.js';
import { WebApprovalsChangedDocument, WebDecideApprovalDocument, WebPendingApprovalsDocument, type WebPendingApprovalFragment } from '../generated/graphql.js';

/**
 * The caller's pending approvals across all their sessions, kept current by the approvalsChanged
 * subscription (a change anywhere reloads the list; after a dropped connection it resubscribes).
 */
export function usePendingApprovals(enabled: boolean): { pending: WebPendingApprovalFragment[]; refresh(): Promise<void> } {
  const [pending, setPending] = useState<WebPendingApprovalFragment[]>([]);
  const refresh = useCallback(async () => {
    const data = await request(WebPendingApprovalsDocument);
    setPending(data.approvals.edges.map((e) => e.node));
  }, []);
  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    let stop = () => {};
    const start = () => {
      void refresh().catch(() => {});
      stop = subscribe(
        WebApprovalsChangedDocument,
        {},
        {
          next: () => void refresh().catch(() => {}),
          complete: () => {},
          error: (_error, dropped) => {
            if (dropped && !stopped) setTimeout(() => stopped || start(), 1000);
          },
        },
      );
    };
    start();
    return () => {
      stopped = true;
      stop();
    };
  }, [enabled, refresh]);
  return { pending, refresh };
}

interface Props {
  pending: WebPendingApprovalFragment[];
  onDecided(): Promise<void>;
  onOpen(sessionId: string): void;
  onProblem(message: string): void;
}

/** The approvals inbox: every waiting tool call, decided here without opening its session. */
export function Inbox({ pending, onDecided, onOpen, onProblem }: Props) {
  return (
    <div class="inbox" data-testid="inbox" role="dialog" aria-label="Approvals inbox">
      <h2>Approvals</h2>
      {pending.length === 0 ? (
        <p class="hint">Nothing is waiting for you.</p>
      ) : (
        <ul>
          {pending.map((approval) => (
            <InboxItem key={approval.id} approval={approval} onDecided={onDecided} onOpen={onOpen} onProblem={onProblem} />
          ))}
        </ul>
      )}
    </div>
  );
}

/** One waiting tool call, decided in place (also in the email view, for the email's own turn). */
export function InboxItem({ approval, onDecided, onOpen, onProblem }: { approval: WebPendingApprovalFragment } & Omit<Props, 'pending'>) {
  const [reason, setReason] = useState('');
  const [sending, setSending] = useState(false);
  const decide = async (approve: boolean) => {
    setSending(true);
    try {
      const data = await request(WebDecideApprovalDocument, { id: approval.id, approve, reason: reason || undefined });
      if (data.decideApproval.__typename !== 'DecideApprovalSuccess') onProblem(data.decideApproval.message);
      await onDecided();
    } catch (error) {
      onProblem((error as Error).message);
    } finally {
      setSending(false);
    }
  };
  return (
    <li class="approval pending" data-testid="inbox-item" data-session-id={approval.session.id}>
      <div class="inbox-head">
        <button class="link" onClick={() => onOpen(approval.session.id)} title="Open the session">
          {approval.session.name}
        </button>
        <span class="when">{new Date(approval.createdAt).toLocaleTimeString()}</span>
      </div>
      <div>
        <strong>{approval.agentPath.join(' → ')}</strong> wants to run <code>{approval.toolName}</code>
      </div>
      <pre class="inbox-args">{JSON.stringify(approval.arguments, null, 2)}</pre>
      <div class="approval-actions">
        <input placeholder="Reason (optional)" value={reason} onInput={(e) => setReason(e.currentTarget.value)} disabled={sending} />
        <button class="approve" onClick={() => void decide(true)} disabled={sending}>
          Approve
        </button>
        <button class="reject" onClick={() => void decide(false)} disabled={sending}>
          Reject
        </button>
      </div>
    </li>
  );
}
