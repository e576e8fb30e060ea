import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { AgentInfo } from '../agent-info.js';
import { type ApiError, loadIdentity, request, saveIdentity, type Identity } from '../api.js';
import { followTurn, type Connection } from '../follow.js';
import {
  WebAgentsDocument,
  WebCancelTurnDocument,
  WebConversationDocument,
  WebRegenerateDocument,
  WebSendMessageDocument,
  WebSessionsDocument,
  WebViewerDocument,
  type WebSessionFragment,
  type WebViewerQuery,
} from '../generated/graphql.js';
import { useTheme } from '../theme.js';
import { TurnView } from '../turn-view.js';
import { Composer } from './composer.js';
import { Conversation, type Entry } from './conversation.js';
import { IdentityBar, SignIn } from './identity.js';
import { Inbox, usePendingApprovals } from './inbox.js';
import { Inspector } from './inspector.js';
import { UploadList, useUploads } from './uploads.js';
import { MemoryPanel } from './memory.js';
import { DocumentsPanel, type ChatBinding } from './documents.js';
import { ExperimentsPanel } from './experiments.js';
import { EmailPanel } from './email.js';
import { CompareView, forkSession, ReplayForm, type ForkPoint } from './replay.js';
import { SessionList } from './sessions.js';

type Viewer = WebViewerQuery['viewer'];

const sessionFromHash = () => /^#\/session\/(.+)$/.exec(location.hash)?.[1] ?? null;

export function App() {
  const [identity, setIdentity] = useState<Identity>(loadIdentity);
  const [viewer, setViewer] = useState<Viewer | null>(null);
  const [authError, setAuthError] = useState<string | null>(null);
  const [sessions, setSessions] = useState<WebSessionFragment[]>([]);
  const [agents, setAgents] = useState<AgentInfo[]>([]);
  const [sessionId, setSessionId] = useState<string | null>(sessionFromHash);
  const [entries, setEntries] = useState<Entry[]>([]);
  const [connection, setConnection] = useState<Connection>('closed');
  const [problem, setProblem] = useState<string | null>(null);
  const [memoryQuery, setMemoryQuery] = useState<string | null>(null);
  // On narrow screens the sessions and memory panels are drawers; at most one is open.
  const [drawer, setDrawer] = useState<'sessions' | 'memory' | 'inbox' | null>(null);
  const [documentsOpen, setDocumentsOpen] = useState(false);
  const [experimentsOpen, setExperimentsOpen] = useState(false);
  const [emailOpen, setEmailOpen] = useState(false);
  // "Chat about this": the next conversation's document or corpus (the server keeps it on the session).
  const [binding, setBinding] = useState<ChatBinding | null>(null);
  const [theme, toggleTheme] = useTheme();
  const [inspecting, setInspecting] = useState<string | null>(null);
  const [draft, setDraft] = useState<{ text: string } | null>(null);
  const [uploads, startUploads] = useUploads();
  const closeInspector = useCallback(() => setInspecting(null), []);
  // "Replay with…" opens its form on a turn, then the comparison of that turn and its replay.
  const [replay, setReplay] = useState<{ turnId: string } | { a: string; b: string } | null>(null);
  const closeReplay = useCallback(() => setReplay(null), []);
  const inbox = usePendingApprovals(viewer !== null);
  const [, setTick] = useState(0);
  const rerender = useCallback(() => setTick((t) => t + 1), []);
  const followers = useRef<(() => void)[]>([]);

  const refreshSessions = useCallback(async () => {
    const data = await request(WebSessionsDocument);
    setSessions(data.sessions.edges.map((e) => e.node));
  }, []);

  const follow = useCallback(
    (view: TurnView) => {
      followers.current.push(
        followTurn(view, {
          changed: () => {
            rerender();
            if (view.finished) void refreshSessions().catch(() => {});
          },
          connection: setConnection,
          failed: setProblem,
        }),
      );
    },
    [rerender, refreshSessions],
  );

  // Who are we? A 401 in JWT mode (or a refused identity) shows the sign-in form.
  useEffect(() => {
    setViewer(null);
    request(WebViewerDocument)
      .then(async (data) => {
        setViewer(data.viewer);
        setAuthError(null);
        const [, agentList] = await Promise.all([refreshSessions(), request(WebAgentsDocument)]);
        setAgents(agentList.agents.edges.map((e) => e.node));
      })
      .catch((error: ApiError) => setAuthError(error.code === 'UNAUTHENTICATED' ? 'Sign in with a token to continue.' : error.message));
  }, [identity, refreshSessions]);

  useEffect(() => {
    const onHash = () => {
      setSessionId(sessionFromHash());
      setDrawer(null);
    };
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setDrawer(null);
    addEventListener('hashchange', onHash);
    addEventListener('keydown', onKey);
    return () => {
      removeEventListener('hashchange', onHash);
      removeEventListener('keydown', onKey);
    };
  }, []);

  // Loads the open session: past turns are rebuilt from their event logs, unfinished ones resumed.
  useEffect(() => {
    const stopAll = () => followers.current.splice(0).forEach((stop) => stop());
    stopAll();
    setEntries([]);
    setProblem(null);
    if (!sessionId || !viewer) return stopAll;
    let cancelled = false;
    request(WebConversationDocument, { id: sessionId })
      .then((data) => {
        if (cancelled) return;
        if (!data.session) return setProblem('This session does not exist (or is not yours).');
        const { document: bound, corpus } = data.session;
        // The banner shows what this session is bound to, not what the one before it was.
        setBinding(bound ? { document: bound.id, corpus: corpus?.id, title: bound.title } : corpus ? { corpus: corpus.id, title: corpus.name } : null);
        // Answers older than the session were copied into a fork: they belong to none of its turns.
        const forked = data.session.createdAt;
        const users = data.session.messages.edges
          .filter((e) => e.node.type === 'user' || (e.node.type === 'assistant' && e.node.createdAt < forked))
          .map(({ node }) => ({
            entry: { kind: node.type === 'user' ? ('user' as const) : ('answer' as const), id: node.id, content: node.content ?? '', at: node.createdAt },
            at: node.createdAt,
          }));
        const turns = data.session.turns.edges.map(({ node }) => {
          const view = new TurnView(node.id, node.agent, node.status);
          for (const event of node.events) view.apply(event);
          if (!view.finished || view.lastSeq < node.lastSeq) follow(view);
          return { entry: { kind: 'turn' as const, view, at: node.startedAt }, at: node.startedAt };
        });
        setEntries(interleave(users, turns));
      })
      .catch((error: Error) => setProblem(error.message));
    return () => {
      cancelled = true;
      stopAll();
    };
  }, [sessionId, viewer, follow]);

  const openSession = (id: string | null) => {
    location.hash = id ? `#/session/${id}` : '';
  };

  const send = async (content: string, agent: string | null, model: string | null) => {
    setProblem(null);
    try {
      const data = await request(WebSendMessageDocument, {
        input: { content, sessionId, agent: agent || undefined, model: model || undefined, document: binding?.document, corpus: binding?.corpus },
      });
      const result = data.sendMessage;
      if (result.__typename !== 'SendMessagePayload') return setProblem(result.message);
      if (result.session.id !== sessionId) {
        // A new session: the session effect loads it (and follows the turn) once the hash changes.
        await refreshSessions();
        return openSession(result.session.id);
      }
      const view = new TurnView(result.turn.id, result.turn.agent, result.turn.status);
      const at = new Date().toISOString();
      setEntries((list) => [...list, { kind: 'user', id: result.userMessage?.id ?? result.turn.id, content, at }, { kind: 'turn', view, at }]);
      follow(view);
      await refreshSessions();
    } catch (error) {
      setProblem((error as Error).message);
    }
  };

  // The server answers the same stored message again: the conversation gains a turn, not a message.
  const regenerate = async (view: TurnView) => {
    setProblem(null);
    try {
      const result = (await request(WebRegenerateDocument, { turnId: view.run.turnId })).regenerate;
      if (result.__typename !== 'SendMessagePayload') return setProblem(result.message);
      const next = new TurnView(result.turn.id, result.turn.agent, result.turn.status);
      setEntries((list) => [...list, { kind: 'turn', view: next, at: result.turn.startedAt }]);
      follow(next);
      await refreshSessions();
    } catch (error) {
      setProblem((error as Error).message);
    }
  };

  const fork = async (at: ForkPoint) => {
    if (!sessionId) return;
    setProblem(null);
    try {
      const forked = await forkSession(sessionId, at);
      await refreshSessions();
      openSession(forked);
    } catch (error) {
      setProblem((error as Error).message);
    }
  };

  const active = entries.flatMap((e) => (e.kind === 'turn' && !e.view.finished ? [e.view] : []));
  const cancel = async () => {
    try {
      for (const view of active) {
        const data = await request(WebCancelTurnDocument, { id: view.run.turnId });
        if (data.cancelTurn.__typename !== 'CancelTurnSuccess') setProblem(data.cancelTurn.message);
      }
    } catch (error) {
      setProblem((error as Error).message);
    }
  };

  const changeIdentity = (next: Identity) => {
    saveIdentity(next);
    setIdentity(next);
  };

  if (!viewer) {
    return authError ? <SignIn identity={identity} message={authError} onChange={changeIdentity} /> : <div class="loading">Connecting…</div>;
  }
  const current = sessions.find((s) => s.id === sessionId);
  const waiting = new Map<string, number>();
  for (const approval of inbox.pending) waiting.set(approval.session.id, (waiting.get(approval.session.id) ?? 0) + 1);
  const models = [...new Set([viewer.defaultModel, 'demo', ...agents.map((a) => a.model)].filter((m): m is string => Boolean(m)))];
  return (
    <div class={`app${drawer ? ` ${drawer}-open` : ''}`}>
      <header class="topbar">
        <button
          class="icon drawer-toggle sessions-toggle"
          title="Sessions"
          aria-expanded={drawer === 'sessions'}
          onClick={() => setDrawer(drawer === 'sessions' ? null : 'sessions')}
          data-testid="sessions-toggle"
        >
          ☰
        </button>
        <span class="brand">remgraph</span>
        <span class="title">{current?.name ?? (sessionId ? '' : 'New chat')}</span>
        <span class={`connection ${connection}`} data-testid="connection">
          {active.length ? (connection === 'reconnecting' ? 'reconnecting…' : 'live') : ''}
        </span>
        <button
          class="icon inbox-toggle"
          title="Approvals inbox"
          aria-expanded={drawer === 'inbox'}
          onClick={() => setDrawer(drawer === 'inbox' ? null : 'inbox')}
          data-testid="inbox-toggle"
        >
          Inbox
          {inbox.pending.length > 0 && (
            <span class="badge" data-testid="inbox-count">
              {inbox.pending.length}
            </span>
          )}
        </button>
        <button class="icon inbox-toggle" title="Documents and corpora" onClick={() => setDocumentsOpen(!documentsOpen)} data-testid="documents-toggle">
          Documents
        </button>
        <button
          class="icon inbox-toggle"
          title="Experiments and regressions"
          onClick={() => setExperimentsOpen(!experimentsOpen)}
          data-testid="experiments-toggle"
        >
          Experiments
        </button>
        {viewer.isAdmin && (
          <button class="icon inbox-toggle" title="Inbound email (the shared inbox)" onClick={() => setEmailOpen(!emailOpen)} data-testid="email-toggle">
            Email
          </button>
        )}
        <IdentityBar viewer={viewer} identity={identity} onChange={changeIdentity} />
        <a class="graphiql-link" href="/graphql" target="_blank" rel="noopener">
          GraphiQL
        </a>
        <button
          class="icon drawer-toggle memory-toggle"
          title="Memory"
          aria-expanded={drawer === 'memory'}
          onClick={() => setDrawer(drawer === 'memory' ? null : 'memory')}
          data-testid="memory-toggle"
        >
          ◈
        </button>
        <button class="icon" title={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`} onClick={toggleTheme} data-testid="theme-toggle">
          {theme === 'dark' ? '☀' : '☾'}
        </button>
      </header>
      <div class="scrim" onClick={() => setDrawer(null)} />
      {drawer === 'inbox' && <Inbox pending={inbox.pending} onDecided={inbox.refresh} onOpen={openSession} onProblem={setProblem} />}
      <SessionList
        sessions={sessions}
        waiting={waiting}
        currentId={sessionId}
        agents={agents}
        onOpen={openSession}
        onChanged={refreshSessions}
        onProblem={setProblem}
      />
      <main
        class="chat"
        onDragOver={(e) => e.preventDefault()}
        onDrop={(e) => {
          e.preventDefault();
          startUploads([...(e.dataTransfer?.files ?? [])]);
        }}
      >
        {binding && (
          <div class="meta binding" data-testid="binding">
            About: {binding.title}{' '}
            <button class="icon" title="Stop talking about it" onClick={() => setBinding(null)}>
              ✕
            </button>
          </div>
        )}
        {problem && (
          <div class="problem" role="alert">
            {problem}
          </div>
        )}
        <Conversation
          entries={entries}
          onChanged={rerender}
          onProblem={setProblem}
          onSource={(query) => {
            setMemoryQuery(query);
            setDrawer('memory');
          }}
          onInspect={setInspecting}
          onRegenerate={regenerate}
          onEdit={(text) => setDraft({ text })}
          onFork={(at) => void fork(at)}
          onReplay={(turnId) => setReplay({ turnId })}
        />
        <UploadList uploads={uploads} />
        <Composer
          agents={agents}
          models={models}
          sessionAgent={current?.agent ?? null}
          busy={active.length > 0}
          draft={draft}
          onFiles={startUploads}
          onSend={send}
          onCancel={cancel}
        />
      </main>
      <MemoryPanel query={memoryQuery} />
      {documentsOpen && (
        <DocumentsPanel
          onClose={() => setDocumentsOpen(false)}
          onChat={(chosen) => {
            setBinding(chosen);
            setDocumentsOpen(false);
            openSession(null);
          }}
        />
      )}
      {experimentsOpen && <ExperimentsPanel onClose={() => setExperimentsOpen(false)} />}
      {emailOpen && (
        <EmailPanel
          pending={inbox.pending}
          onDecided={inbox.refresh}
          onOpenSession={(id) => {
            setEmailOpen(false);
            openSession(id);
          }}
          onProblem={setProblem}
          onClose={() => setEmailOpen(false)}
        />
      )}
      {inspecting && <Inspector key={inspecting} turnId={inspecting} onClose={closeInspector} />}
      {replay && 'turnId' in replay && (
        <ReplayForm
          turnId={replay.turnId}
          models={models}
          onReplayed={(a, b) => {
            setReplay({ a, b });
            void refreshSessions().catch(() => {});
          }}
          onClose={closeReplay}
        />
      )}
      {replay && 'a' in replay && <CompareView key={replay.b} a={replay.a} b={replay.b} onClose={closeReplay} />}
    </div>
  );
}

/**
 * Puts each user message before the turn it started. The turn is created just before its message,
 * so a turn's message is the one stored after the turn started and before the next turn did.
 */
function interleave(users: { entry: Entry; at: string }[], turns: { entry: Entry; at: string }[]): Entry[] {
  const out: Entry[] = [];
  let u = 0;
  turns.forEach((turn, i) => {
    const next = turns[i + 1]?.at;
    const own: Entry[] = [];
    while (u < users.length && users[u]!.at < turn.at) out.push(users[u++]!.entry);
    while (u < users.length && (next === undefined || users[u]!.at < next)) own.push(users[u++]!.entry);
    out.push(...own, turn.entry);
  });
  return [...out, ...users.slice(u).map((m) => m.entry)];
}
