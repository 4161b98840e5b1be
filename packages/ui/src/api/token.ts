// The ACL token the UI sends as X-Consul-Token: kept in the browser's local storage, one owner for it.

const KEY = "cairn.ui.token";
const listeners = new Set<() => void>();

export function getToken(): string {
  try {
    return localStorage.getItem(KEY) ?? "";
  } catch {
    return "";
  }
}

/** Stores (or with "" forgets) the token and tells every live view to reload with it. */
export function setToken(token: string): void {
  if (token === "") localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, token);
  for (const listener of listeners) listener();
}

export function onTokenChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
