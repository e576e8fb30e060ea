import { useEffect, useState } from 'preact/hooks';
import { request } from '../api.js';
import { WebDocumentDocument, WebLibraryDocument, WebSummaryDiffDocument, type WebDocumentQuery, type WebLibraryQuery } from '../generated/graphql.js';

type Library = WebLibraryQuery;
type Detail = NonNullable<WebDocumentQuery['document']>;

/** What "chat about this" binds the next conversation to. */
export interface ChatBinding {
  document?: string;
  corpus?: string;
  title: string;
}

/** The documents view: corpora and their documents; a document's text with its annotations, notes (revisions) and summary (versions, diff). */
export function DocumentsPanel({ onChat, onClose }: { onChat: (binding: ChatBinding) => void; onClose: () => void }) {
  const [library, setLibrary] = useState<Library | null>(null);
  const [open, setOpen] = useState<{ id: string; corpusId: string | null } | null>(null);
  const [detail, setDetail] = useState<Detail | null>(null);
  const [diff, setDiff] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    request(WebLibraryDocument)
      .then(setLibrary)
      .catch((e: Error) => setError(e.message));
  }, []);

  useEffect(() => {
    if (!open) return;
    setDiff(null);
    request(WebDocumentDocument, { id: open.id, corpusId: open.corpusId ?? open.id, withCorpus: open.corpusId !== null })
      .then((data) => setDetail(data.document))
      .catch((e: Error) => setError(e.message));
  }, [open]);

  const showDiff = async (doc: Detail) => {
    const versions = doc.summaryVersions.map((v) => v.version);
    if (versions.length < 2) return;
    const data = await request(WebSummaryDiffDocument, { id: doc.id, from: versions.at(-2)!, to: versions.at(-1)! });
    setDiff(data.document.summaryDiff);
  };

  const inCorpus = new Set(library?.corpora.edges.flatMap((c) => c.node.documents.edges.map((d) => d.node.id)) ?? []);
  const loose = library?.documents.edges.filter((d) => !inCorpus.has(d.node.id)) ?? [];
  const corpusOf = (id: string | null) => library?.corpora.edges.find((c) => c.node.id === id)?.node;

  return (
    <section class="overlay documents" data-testid="documents">
      <div class="overlay-head">
        <h2>Documents</h2>
        <button class="icon" title="Close" onClick={onClose}>
          ✕
        </button>
      </div>
      {error && <div class="error">{error}</div>}
      <div class="library">
        {library?.corpora.edges.map(({ node: corpus }) => (
          <div class="corpus" key={corpus.id} data-testid="corpus">
            <h3>
              {corpus.name}{' '}
              <button onClick={() => onChat({ corpus: corpus.id, title: corpus.name })} data-testid="chat-corpus">
                Chat about this corpus
              </button>
            </h3>
            {corpus.description && <p class="meta">{corpus.description}</p>}
            <ul>
              {corpus.documents.edges.map(({ node }) => (
                <li key={node.id}>
                  <button onClick={() => setOpen({ id: node.id, corpusId: corpus.id })} data-testid="document">
                    {node.title}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        ))}
        {loose.length > 0 && (
          <div class="corpus">
            <h3>Not in a corpus</h3>
            <ul>
              {loose.map(({ node }) => (
                <li key={node.id}>
                  <button onClick={() => setOpen({ id: node.id, corpusId: null })} data-testid="document">
                    {node.title}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
      {detail && open && (
        <article class="document" data-testid="document-detail">
          <h3>
            {detail.title}
            {detail.pageCount ? <span class="meta"> · {detail.pageCount} pages</span> : null}{' '}
            <button onClick={() => onChat({ document: detail.id, corpus: open.corpusId ?? undefined, title: detail.title })} data-testid="chat-document">
              Chat about this document
            </button>
          </h3>
          <pre class="document-text" data-testid="document-text">
            {highlighted(detail.text, detail.annotations ?? [])}
          </pre>
          <h4>Summary</h4>
          {detail.summary ? <p data-testid="summary">{detail.summary}</p> : <p class="meta">No summary yet.</p>}
          <ul class="meta" data-testid="summary-versions">
            {detail.summaryVersions.map((v) => (
              <li key={v.version}>
                v{v.version} · {v.agentName ?? v.authorId ?? 'unknown'} · {new Date(v.createdAt).toLocaleString()}
              </li>
            ))}
          </ul>
          {detail.summaryVersions.length > 1 && (
            <button onClick={() => void showDiff(detail)} data-testid="summary-diff-button">
              Diff of the last two versions
            </button>
          )}
          {diff && <pre data-testid="summary-diff">{diff}</pre>}
          {detail.notes && (
            <>
              <h4>Notes in {corpusOf(open.corpusId)?.name}</h4>
              <ul data-testid="notes">
                {detail.notes.map((note) => (
                  <li key={note.id}>
                    <strong>{note.title}</strong>: {note.content}
                    <span class="meta"> ({note.revisions.length} revisions)</span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </article>
      )}
    </section>
  );
}

/** The text with each annotation's span marked (labelled on hover); spans of different labels may overlap, the first wins. */
function highlighted(text: string, annotations: { id: string; label: string; start: number; end: number }[]) {
  const parts = [];
  let at = 0;
  for (const a of [...annotations].sort((x, y) => x.start - y.start)) {
    if (a.start < at) continue;
    parts.push(text.slice(at, a.start));
    parts.push(
      <mark key={a.id} title={a.label} data-label={a.label} data-testid="annotation">
        {text.slice(a.start, a.end)}
      </mark>,
    );
    at = a.end;
  }
  parts.push(text.slice(at));
  return parts;
}
