import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Identity } from '../api.js';
import type { WebViewerQuery } from '../generated/graphql.js';

/** Sign-in form: a JWT (when the server requires one) or header identity for local use. */
export function SignIn({ identity, message, onChange }: { identity: Identity; message: string; onChange(identity: Identity): void }) {
  return (
    <div class="sign-in">
      <h1>remgraph</h1>
      <p class="problem">{message}</p>
      <IdentityForm identity={identity.mode === 'jwt' ? identity : { mode: 'jwt', token: '' }} onChange={onChange} />
    </div>
  );
}

export function IdentityBar({ viewer, identity, onChange }: { viewer: WebViewerQuery['viewer']; identity: Identity; onChange(identity: Identity): void }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLSpanElement>(null);
  // Escape and a click anywhere else close it, as popovers do. A layout effect, so the listeners are in
  // place when the popup is: a plain effect runs a frame later, and a key pressed in between was lost.
  useLayoutEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    const onPointer = (e: PointerEvent) => root.current?.contains(e.target as Node) || setOpen(false);
    addEventListener('keydown', onKey);
    addEventListener('pointerdown', onPointer);
    return () => {
      removeEventListener('keydown', onKey);
      removeEventListener('pointerdown', onPointer);
    };
  }, [open]);
  return (
    <span class="identity" ref={root}>
      <button class="link" onClick={() => setOpen(!open)} data-testid="identity">
        {viewer.userId ?? 'anonymous'}@{viewer.tenantId} · {viewer.authMode === 'JWT' ? 'JWT' : 'headers'}
      </button>
      {open && (
        <div class="identity-popup" data-testid="identity-popup">
          <IdentityForm
            identity={identity}
            onChange={(next) => {
              setOpen(false);
              onChange(next);
            }}
          />
        </div>
      )}
    </span>
  );
}

function IdentityForm({ identity, onChange }: { identity: Identity; onChange(identity: Identity): void }) {
  const [mode, setMode] = useState(identity.mode);
  const [token, setToken] = useState(identity.mode === 'jwt' ? identity.token : '');
  const [userId, setUserId] = useState(identity.mode === 'headers' ? identity.userId : '');
  const [tenantId, setTenantId] = useState(identity.mode === 'headers' ? identity.tenantId : '');
  const [roles, setRoles] = useState(identity.mode === 'headers' ? (identity.roles ?? '') : '');
  return (
    <form
      class="identity-form"
      onSubmit={(e) => {
        e.preventDefault();
        onChange(mode === 'jwt' ? { mode, token: token.trim() } : { mode, userId: userId.trim(), tenantId: tenantId.trim(), roles: roles.trim() });
      }}
    >
      <div class="modes">
        <label>
          <input type="radio" checked={mode === 'jwt'} onChange={() => setMode('jwt')} /> Token (JWT)
        </label>
        <label>
          <input type="radio" checked={mode === 'headers'} onChange={() => setMode('headers')} /> Headers (local development)
        </label>
      </div>
      {mode === 'jwt' ? (
        <textarea placeholder="Paste a JWT" value={token} rows={4} onInput={(e) => setToken(e.currentTarget.value)} data-testid="token-input" />
      ) : (
        <>
          <input placeholder="X-User-Id (server default when empty)" value={userId} onInput={(e) => setUserId(e.currentTarget.value)} />
          <input placeholder="X-Tenant-Id (server default when empty)" value={tenantId} onInput={(e) => setTenantId(e.currentTarget.value)} />
          <input placeholder="X-Roles (e.g. admin)" value={roles} onInput={(e) => setRoles(e.currentTarget.value)} />
        </>
      )}
      <button type="submit">Use</button>
    </form>
  );
}
