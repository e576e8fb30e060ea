import { useState } from 'preact/hooks';
import { request } from '../api.js';
import { WebCreateSessionDocument, WebDeleteSessionDocument, WebRenameSessionDocument, type WebSessionFragment } from '../generated/graphql.js';
import type { AgentInfo } from '../agent-info.js';

interface Props {
  sessions: WebSessionFragment[];
  /** Pending approvals per session id. */
  waiting: Map<string, number>;
  currentId: string | null;
  agents: AgentInfo[];
  onOpen(id: string | null): void;
  onChanged(): Promise<void>;
  onProblem(message: string): void;
}

export function SessionList({ sessions, waiting, currentId, agents, onOpen, onChanged, onProblem }: Props) {
  const [editing, setEditing] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [agent, setAgent] = useState('');
  const [search, setSearch] = useState('');
  const shown = search.trim() ? sessions.filter((s) => s.name.toLowerCase().includes(search.trim().toLowerCase())) : sessions;
  const report = (error: Error) => onProblem(error.message);

  const create = async () => {
    const data = await request(WebCreateSessionDocument, { input: { agent: agent || undefined } });
    const result = data.createSession;
    if (result.__typename !== 'CreateSessionSuccess') return onProblem(result.message);
    await onChanged();
    onOpen(result.session.id);
  };

  const rename = async (id: string) => {
    const data = await request(WebRenameSessionDocument, { id, name });
    setEditing(null);
    if (data.renameSession.__typename !== 'RenameSessionSuccess') return onProblem(data.renameSession.message);
    await onChanged();
  };

  const remove = async (session: WebSessionFragment) => {
    if (!confirm(`Delete “${session.name}” and its history?`)) return;
    const data = await request(WebDeleteSessionDocument, { id: session.id });
    if (data.deleteSession.__typename !== 'DeleteSessionSuccess') return onProblem(data.deleteSession.message);
    if (session.id === currentId) onOpen(null);
    await onChanged();
  };

  return (
    <aside class="sessions">
      <div class="new-session">
        <button onClick={() => void create().catch(report)} data-testid="new-session">
          New chat
        </button>
        <select value={agent} onChange={(e) => setAgent(e.currentTarget.value)} title="Agent of the new chat">
          <option value="">default agent</option>
          {agents.map((a) => (
            <option key={a.name} value={a.name}>
              {a.name}
            </option>
          ))}
        </select>
      </div>
      <input
        type="search"
        class="session-search"
        placeholder="Search sessions"
        value={search}
        onInput={(e) => setSearch(e.currentTarget.value)}
        data-testid="session-search"
      />
      <ul>
        {shown.map((s) => (
          <li key={s.id} class={s.id === currentId ? 'current' : ''} data-testid="session">
            {editing === s.id ? (
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  void rename(s.id).catch(report);
                }}
              >
                <input value={name} onInput={(e) => setName(e.currentTarget.value)} autoFocus onBlur={() => setEditing(null)} />
              </form>
            ) : (
              <>
                <a href={`#/session/${s.id}`} class="session-name">
                  {s.name}
                  {s.agent && <span class="session-agent">{s.agent}</span>}
                </a>
                {waiting.has(s.id) && (
                  <span class="badge" title="Waiting for your approval" data-testid="session-waiting">
                    {waiting.get(s.id)}
                  </span>
                )}
                <span class="session-actions">
                  <button
                    title="Rename"
                    onClick={() => {
                      setName(s.name);
                      setEditing(s.id);
                    }}
                  >
                    ✎
                  </button>
                  <button title="Delete" onClick={() => void remove(s).catch(report)}>
                    ✕
                  </button>
                </span>
              </>
            )}
          </li>
        ))}
      </ul>
    </aside>
  );
}
