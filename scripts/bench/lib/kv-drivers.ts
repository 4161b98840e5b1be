// Single-key writes and reads over HTTP for the KV stores compared in the benchmarks: Cairn's /v1/kv
// (Consul's API) and etcd's v3 JSON gateway. Both go through the same keep-alive client and check only
// the status code, so neither side pays for response parsing the other skips.

import type { Agent } from "node:http";
import { type HttpTarget, httpOk } from "./http-client.js";

/** default: answered by (or through) the leader; local: any server from its own replica. */
export type ReadMode = "default" | "local";

export interface KvDriver {
  system: string;
  put(agent: Agent, target: HttpTarget, key: string, value: Buffer): Promise<void>;
  get(agent: Agent, target: HttpTarget, key: string, mode: ReadMode): Promise<void>;
}

const OCTETS = { "content-type": "application/octet-stream" };
const JSON_BODY = { "content-type": "application/json" };

export const cairnKv: KvDriver = {
  system: "Cairn",
  async put(agent, target, key, value) {
    const res = await httpOk(agent, target, "PUT", `/v1/kv/${key}`, value, OCTETS);
    if (res.body.toString() !== "true") throw new Error(`PUT ${key} answered ${res.body.toString()}`);
  },
  async get(agent, target, key, mode) {
    await httpOk(agent, target, "GET", mode === "local" ? `/v1/kv/${key}?stale` : `/v1/kv/${key}`);
  },
};

const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");

export const etcdKv: KvDriver = {
  system: "etcd",
  async put(agent, target, key, value) {
    const body = `{"key":"${b64(key)}","value":"${b64(value)}"}`;
    await httpOk(agent, target, "POST", "/v3/kv/put", body, JSON_BODY);
  },
  async get(agent, target, key, mode) {
    const body = mode === "local" ? `{"key":"${b64(key)}","serializable":true}` : `{"key":"${b64(key)}"}`;
    await httpOk(agent, target, "POST", "/v3/kv/range", body, JSON_BODY);
  },
};
