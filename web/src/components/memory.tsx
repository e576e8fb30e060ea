import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { REM_DIALECT_MODES } from '../../../src/rem/dialect.js';
import { request } from '../api.js';
import { WebEntityDocument, WebRemQueryDocument, type WebEntityQuery, type WebRemQueryQuery } from '../generated/graphql.js';

type Result = WebRemQueryQuery['remQuery'];
type Hit = Result['hits'][number];
type Entity = NonNullable<WebEntityQuery['entity']>;

/** The REM memory panel: runs a query and shows hits; a hit opens its details. */
export function MemoryPanel({ query: requested }: { query: string | null }) {
  const [query, setQuery] = useState('SEARCH "" LIMIT 5');
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<{ hit: Hit; entity: Entity | null } | null>(null);

  const run = async (text: string) => {
    setError(null);
    setSelected(null);
    try {
      setResult((await request(WebRemQueryDocument, { query: text })).remQuery);
    } catch (e) {
      setResult(null);
      setError((e as Error).message);
    }
  };

  useEffect(() => {
    if (!requested) return;
    setQuery(requested);
    void run(requested);
  }, [requested]);

  const open = async (hit: Hit) => {
    const entity = hit.entityType === 'entities' ? ((await request(WebEntityDocument, { key: hit.key }).catch(() => null))?.entity ?? null) : null;
    setSelected({ hit, entity });
  };

  return (
    <aside class="memory" data-testid="memory">
      <h2>Memory</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(query);
        }}
      >
        <textarea value={query} rows={2} onInput={(e) => setQuery(e.currentTarget.value)} spellcheck={false} data-testid="rem-query" />
        <button type="submit">Run</button>
      </form>
      <p class="hint">
        {Object.values(REM_DIALECT_MODES).map((mode, i) => (
          <Fragment key={mode.example}>
            {i > 0 && ' · '}
            <code title={mode.use}>{mode.example}</code>
          </Fragment>
        ))}
      </p>
      {error && <div class="error">{error}</div>}
      {result && (
        <div class="rem-result">
          <div class="meta">
            {result.mode} · {result.mode === 'SQL' ? `${(result.rows as unknown[] | null)?.length ?? 0} rows` : `${result.hits.length} hits`} ·{' '}
            {result.tookMs.toFixed(1)} ms{result.truncated ? ' · truncated' : ''}
          </div>
          {result.mode === 'SQL' ? (
            <pre>{JSON.stringify(result.rows, null, 2)}</pre>
          ) : (
            <ul class="hits">
              {result.hits.map((hit) => (
                <li key={hit.id} class={selected?.hit.id === hit.id ? 'current' : ''}>
                  <button onClick={() => void open(hit)} data-testid="rem-hit">
                    {/* Titled by key in every mode: only LOOKUP hits carry a name, shown beside it. */}
                    <span class="key">{hit.key}</span>
                    {hit.name && hit.name !== hit.key && <span class="name">{hit.name}</span>}
                    <span class="type">{hit.entityType}</span>
                    {hit.score != null && <span class="score">{hit.score.toFixed(2)}</span>}
                    {hit.summary && <span class="summary">{hit.summary}</span>}
                    {hit.path && <span class="summary">{hit.path.join(' → ')}</span>}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {selected && (
        <Details
          hit={selected.hit}
          entity={selected.entity}
          onQuery={(q) => {
            setQuery(q);
            void run(q);
          }}
        />
      )}
    </aside>
  );
}

function Details({ hit, entity, onQuery }: { hit: Hit; entity: Entity | null; onQuery(query: string): void }) {
  return (
    <div class="details" data-testid="rem-details">
      <h3>{entity?.name ?? hit.name ?? hit.key}</h3>
      <div class="meta">
        <code>{hit.key}</code> · {entity?.entityType ?? hit.entityType}
      </div>
      {(entity?.summary ?? hit.summary) && <p>{entity?.summary ?? hit.summary}</p>}
      {(entity?.content ?? hit.content) && <pre>{entity?.content ?? hit.content}</pre>}
      {entity && entity.tags.length > 0 && (
        <div class="tags">
          {entity.tags.map((t) => (
            <span key={t} class="tag">
              {t}
            </span>
          ))}
        </div>
      )}
      {entity && entity.graphEdges.length > 0 && (
        <ul class="edges">
          {entity.graphEdges.map((edge) => (
            <li key={`${edge.relType}:${edge.dst}`}>
              {edge.relType} →{' '}
              <button class="link" onClick={() => onQuery(`LOOKUP "${edge.dst}"`)}>
                {edge.target?.name ?? edge.dst}
              </button>{' '}
              <span class="score">{edge.weight}</span>
            </li>
          ))}
        </ul>
      )}
      {entity?.extractedData != null && <pre>{JSON.stringify(entity.extractedData, null, 2)}</pre>}
      {hit.entityType !== 'messages' && !hit.content && !entity && (
        <button class="link" onClick={() => onQuery(`LOOKUP "${hit.key}"`)}>
          Load full content
        </button>
      )}
    </div>
  );
}
