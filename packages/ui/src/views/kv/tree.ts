/** The KV tree, by `/`: which folders and keys sit directly under a prefix. */

export interface KvEntry {
  /** The last segment, as displayed (may be empty for `a//b`). */
  readonly name: string;
  /** The full key; a folder's ends with `/`. */
  readonly key: string;
  readonly folder: boolean;
}

export interface KvListing {
  readonly entries: readonly KvEntry[];
  /** Whether the prefix itself is a stored key (a folder created as `a/`). */
  readonly prefixIsKey: boolean;
}

function compareEntries(a: KvEntry, b: KvEntry): number {
  if (a.folder !== b.folder) return a.folder ? -1 : 1;
  // By name, so `a b/` sorts after `a/` as a reader expects, not by the key's code points.
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The direct children of `prefix` (`""` or ending with `/`) among `keys`, which may be the flat list of
 * every key below it or Consul's `?keys&separator=/` answer (folders already folded to `name/`).
 */
export function listFolder(keys: readonly string[], prefix: string): KvListing {
  const byKey = new Map<string, KvEntry>();
  let prefixIsKey = false;
  for (const key of keys) {
    if (!key.startsWith(prefix)) continue;
    if (key === prefix) {
      prefixIsKey = prefix !== "";
      continue;
    }
    const rest = key.slice(prefix.length);
    const slash = rest.indexOf("/");
    const entry: KvEntry =
      slash < 0
        ? { name: rest, key, folder: false }
        : { name: rest.slice(0, slash), key: prefix + rest.slice(0, slash + 1), folder: true };
    byKey.set(entry.key, entry);
  }
  return { entries: [...byKey.values()].sort(compareEntries), prefixIsKey };
}

export interface Crumb {
  readonly name: string;
  /** The folder prefix this crumb opens (`""` for the root). */
  readonly prefix: string;
}

/** The folders leading to `key` (a folder prefix or a key), root first, not including a leaf key itself. */
export function crumbs(key: string): Crumb[] {
  const out: Crumb[] = [{ name: "Key/Value", prefix: "" }];
  let at = 0;
  for (;;) {
    const slash = key.indexOf("/", at);
    if (slash < 0) return out;
    out.push({ name: key.slice(at, slash), prefix: key.slice(0, slash + 1) });
    at = slash + 1;
  }
}

/** The folder holding `key`: `a/b/` for `a/b/c` and for `a/b/c/`. */
export function parentFolder(key: string): string {
  const trimmed = key.endsWith("/") ? key.slice(0, -1) : key;
  const slash = trimmed.lastIndexOf("/");
  return slash < 0 ? "" : trimmed.slice(0, slash + 1);
}

/** Whether `key` names a folder (ends with `/`), as Consul's UI treats such keys. */
export function isFolderKey(key: string): boolean {
  return key.endsWith("/");
}
