// Single-key writes and reads over HTTP for the KV stores compared in the benchmarks: Cairn's /v1/kv
// (Consul's API) and etcd's v3 JSON gateway. Both go through the same keep-alive client and check only
// the status code, so neither side pays for response parsing the other skips.

import type { Agent } from "node:http";
import { type HttpTarget, httpOk } from "./http-client.js";
import type { WrkRequest } from "./wrk.js";

/**
 * default: Consul's default mode, answered by (or through) the leader from its lease; consistent: the leader
 * confirms with a quorum first (etcd has one linearizable read for both); local: any server from its own
 * replica (Consul's ?stale, etcd's serializable read).
 */
export type ReadMode = "default" | "consistent" | "local";

const CAIRN_READ_QUERY: Record<ReadMode, string> = {
  default: "",
  consistent: "?consistent",
  local: "?stale",
};

export interface KvDriver {
  system: string;
  /** The requests, as the wrk load generator sends them (the Node one sends the same through put/get). */
  putRequest(key: string, value: Buffer): WrkRequest;
  getRequest(key: string, mode: ReadMode): WrkRequest;
  put(agent: Agent, target: HttpTarget, key: string, value: Buffer): Promise<void>;
  get(agent: Agent, target: HttpTarget, key: string, mode: ReadMode): Promise<void>;
}

const OCTETS = { "content-type": "application/octet-stream" };
const JSON_BODY = { "content-type": "application/json" };

export const cairnKv: KvDriver = {
  system: "Cairn",
  putRequest: (key, value) => ({
    method: "PUT",
    path: `/v1/kv/${key}`,
    body: value.toString(),
    headers: OCTETS,
  }),
  getRequest: (key, mode) => ({
    method: "GET",
    path: `/v1/kv/${key}${CAIRN_READ_QUERY[mode]}`,
  }),
  async put(agent, target, key, value) {
    const r = cairnKv.putRequest(key, value);
    const res = await httpOk(agent, target, r.method, r.path, value, OCTETS);
    if (res.body.toString() !== "true") throw new Error(`PUT ${key} answered ${res.body.toString()}`);
  },
  async get(agent, target, key, mode) {
    const r = cairnKv.getRequest(key, mode);
    await httpOk(agent, target, r.method, r.path);
  },
};

const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");

export const etcdKv: KvDriver = {
  system: "etcd",
  putRequest: (key, value) => ({
    method: "POST",
    path: "/v3/kv/put",
    body: `{"key":"${b64(key)}","value":"${b64(value)}"}`,
    headers: JSON_BODY,
  }),
  getRequest: (key, mode) => ({
    method: "POST",
    path: "/v3/kv/range",
    body: mode === "local" ? `{"key":"${b64(key)}","serializable":true}` : `{"key":"${b64(key)}"}`,
    headers: JSON_BODY,
  }),
  async put(agent, target, key, value) {
    const r = etcdKv.putRequest(key, value);
    await httpOk(agent, target, r.method, r.path, r.body, JSON_BODY);
  },
  async get(agent, target, key, mode) {
    const r = etcdKv.getRequest(key, mode);
    await httpOk(agent, target, r.method, r.path, r.body, JSON_BODY);
  },
};
