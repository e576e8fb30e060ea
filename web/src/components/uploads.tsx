import { useState } from 'preact/hooks';
import { subscribe, upload } from '../api.js';
import { WebIngestFileDocument, WebIngestProgressDocument } from '../generated/graphql.js';

export interface Upload {
  id: string;
  name: string;
  stage: string;
  chunks: number | null;
  /** Every stage the progress subscription reported, in order. */
  stages: string[];
  /** The resource it became. */
  key?: string;
  error?: string;
}

/** Files going into memory through ingestFile, each followed by its ingestProgress subscription. */
export function useUploads(): [Upload[], (files: File[]) => void] {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const update = (id: string, change: (u: Upload) => Partial<Upload>) => setUploads((list) => list.map((u) => (u.id === id ? { ...u, ...change(u) } : u)));

  const start = async (file: File) => {
    const id = crypto.randomUUID();
    setUploads((list) => [...list, { id, name: file.name, stage: 'UPLOADING', chunks: null, stages: [] }]);
    const stop = subscribe(
      WebIngestProgressDocument,
      { progressId: id },
      {
        next: ({ ingestProgress: p }) => update(id, (u) => ({ stage: p.stage, chunks: p.chunks ?? u.chunks, stages: [...u.stages, p.stage] })),
        complete: () => {},
        error: () => {},
      },
    );
    // graphql-ws does not acknowledge a subscription: give it a moment to be live before the upload starts.
    await new Promise((resolve) => setTimeout(resolve, 300));
    try {
      const data = await upload(WebIngestFileDocument, { file, progressId: id });
      const result = data.ingestFile;
      if (result.__typename === 'IngestFileSuccess') update(id, () => ({ stage: 'DONE', chunks: result.chunks, key: result.resource.key }));
      else update(id, () => ({ stage: 'FAILED', error: result.message }));
    } catch (error) {
      update(id, () => ({ stage: 'FAILED', error: (error as Error).message }));
    } finally {
      stop();
    }
  };
  return [uploads, (files) => files.forEach((f) => void start(f))];
}

export function UploadList({ uploads }: { uploads: Upload[] }) {
  if (!uploads.length) return null;
  return (
    <ul class="uploads">
      {uploads.map((u) => (
        <li key={u.id} class={`upload ${u.stage.toLowerCase()}`} data-testid="upload" data-stage={u.stage} data-stages={u.stages.join(' ')}>
          <span class="upload-name" title={u.key ? `memory key: ${u.key}` : undefined}>
            {u.name}
          </span>
          <progress max={4} value={['UPLOADING', 'EXTRACTING', 'EMBEDDING', 'STORING', 'DONE'].indexOf(u.stage)} />
          <span class="upload-stage">{u.error ?? `${u.stage.toLowerCase()}${u.chunks != null ? ` · ${u.chunks} chunk${u.chunks === 1 ? '' : 's'}` : ''}`}</span>
        </li>
      ))}
    </ul>
  );
}
