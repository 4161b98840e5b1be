// Typed calls on /v1/kv, shared by the kv commands and by `cairn lock`.
import { type HttpClient, kvPath } from "./http.js";
import { asString, asUint64, field, isObject, type JsonValue, parseJson } from "./json.js";

export interface KvEntry {
  key: string;
  value: Buffer;
  flags: bigint;
  createIndex: bigint;
  modifyIndex: bigint;
  lockIndex: bigint;
  session: string;
}

export interface KvWrite {
  key: string;
  value?: Uint8Array;
  flags?: bigint;
  cas?: bigint;
  acquire?: string;
  release?: string;
}

export interface Blocking {
  index?: bigint;
  wait?: string;
  consistent?: boolean;
  signal?: AbortSignal;
}

export function decodeEntries(body: JsonValue): KvEntry[] {
  if (body === null) return [];
  if (!Array.isArray(body)) throw new Error("unexpected KV response: not an array");
  return body.filter(isObject).map((e) => ({
    key: asString(field(e, "Key")),
    value: Buffer.from(asString(field(e, "Value")), "base64"),
    flags: asUint64(field(e, "Flags")),
    createIndex: asUint64(field(e, "CreateIndex")),
    modifyIndex: asUint64(field(e, "ModifyIndex")),
    lockIndex: asUint64(field(e, "LockIndex")),
    session: asString(field(e, "Session")),
  }));
}

export class KvApi {
  constructor(private readonly http: HttpClient) {}

  /** The entry at `key`, or undefined on 404; `index` is the index to block on next. */
  async get(key: string, block: Blocking = {}): Promise<{ entry: KvEntry | undefined; index: bigint }> {
    const res = await this.read(key, {}, block);
    return { entry: res.entries[0], index: res.index };
  }

  async list(prefix: string, block: Blocking = {}): Promise<{ entries: KvEntry[]; index: bigint }> {
    return this.read(prefix, { recurse: true }, block);
  }

  async keys(prefix: string, separator: string): Promise<string[]> {
    const res = await this.http.request("GET", kvPath(prefix), {
      query: { keys: true, separator: separator === "" ? undefined : separator },
      read: true,
      accept: [404],
    });
    if (res.status === 404) {
      res.discard();
      return [];
    }
    const body = parseJson(await res.text());
    return Array.isArray(body) ? body.filter((k): k is string => typeof k === "string") : [];
  }

  private async read(
    key: string,
    query: Record<string, boolean>,
    block: Blocking,
  ): Promise<{ entries: KvEntry[]; index: bigint }> {
    const res = await this.http.request("GET", kvPath(key), {
      query: {
        ...query,
        index: block.index,
        wait: block.index === undefined ? undefined : block.wait,
        consistent: block.consistent,
      },
      read: true,
      accept: [404],
      signal: block.signal,
    });
    if (res.status === 404) {
      res.discard();
      return { entries: [], index: res.index };
    }
    return { entries: decodeEntries(parseJson(await res.text())), index: res.index };
  }

  /** PUT; true when the server applied it (false for a failed cas, acquire or release). */
  async put(w: KvWrite, signal?: AbortSignal): Promise<boolean> {
    const body = await this.http.json("PUT", kvPath(w.key), {
      query: { flags: w.flags, cas: w.cas, acquire: w.acquire, release: w.release },
      body: w.value ?? new Uint8Array(),
      signal,
    });
    return body === true;
  }

  async delete(
    key: string,
    opts: { recurse?: boolean; cas?: bigint; signal?: AbortSignal } = {},
  ): Promise<boolean> {
    const body = await this.http.json("DELETE", kvPath(key), {
      query: { recurse: opts.recurse, cas: opts.cas },
      signal: opts.signal,
    });
    return body === true;
  }
}
