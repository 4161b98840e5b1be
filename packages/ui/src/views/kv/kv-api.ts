import { api } from "../../api/client";
import { keyPath } from "../../api/paths";

/** One KV record as /v1/kv answers it. */
export interface KvPair {
  Key: string;
  Value: string | null;
  Flags: number;
  Session?: string;
  LockIndex: number;
  CreateIndex: number;
  ModifyIndex: number;
}

export function kvUrl(key: string): string {
  return `/v1/kv/${keyPath(key)}`;
}

/** `href` for a key or folder in the UI. */
export function kvHref(key: string): string {
  return `#/kv/${keyPath(key)}`;
}

/**
 * Writes `text` only if the key is still at `modifyIndex` (0: only if it does not exist). False means
 * somebody changed it first: the caller reports that and never retries without the user.
 */
export async function putKey(
  key: string,
  text: string,
  modifyIndex: number,
  flags: number,
): Promise<boolean> {
  const res = await api<boolean | string>(kvUrl(key), {
    method: "PUT",
    query: { cas: modifyIndex, flags: flags === 0 ? undefined : flags },
    body: text,
  });
  return res.data === true || res.data === "true";
}

/** Deletes the key only if it is still at `modifyIndex`. */
export async function deleteKey(key: string, modifyIndex: number): Promise<boolean> {
  const res = await api<boolean | string>(kvUrl(key), { method: "DELETE", query: { cas: modifyIndex } });
  return res.data === true || res.data === "true";
}

/** Deletes every key under the folder prefix, and the folder key itself. */
export async function deleteFolder(prefix: string): Promise<void> {
  await api(kvUrl(prefix), { method: "DELETE", query: { recurse: true } });
}
