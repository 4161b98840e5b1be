// What every workload offers the runner, and the client plumbing they share: each client is bound to one
// home agent, server or client agent in turn (so that the checkers judge the client agents' forwarding too),
// moves to another one after a failed request (as a client library would fail over) and goes back home
// after a while, as an application returns to its local agent: without that, the share each agent carries
// would drift with the order of the faults, and a client agent hit early could end up serving no one.

import type { Prng } from "@cairn/testkit";
import { type HttpOutcome, httpCall } from "../../../scripts/lib/http.js";
import type { Cluster } from "../cluster/cluster.js";

export interface WorkloadContext {
  readonly cluster: Cluster;
  readonly rng: Prng;
  /** Keys of this run live under this prefix, so that runs never share state. */
  readonly prefix: string;
  readonly requestTimeoutMs: number;
  /** The cluster endpoint a new client starts on: round-robin over servers and client agents. */
  firstEndpoint(): number;
  /** Counts one request to an endpoint, answered (any status below 500) or not. */
  countRequest(endpoint: number, answered: boolean): void;
  /** Milliseconds on the harness's single clock (all history times come from it). */
  now(): number;
}

export interface WorkloadVerdict {
  readonly workload: string;
  readonly valid: boolean | "unknown";
  /** One line for the summary. */
  readonly summary: string;
  /** The checker's full result, written to the verdict file. */
  readonly details: unknown;
}

export interface Workload {
  readonly name: string;
  /** Runs the clients until `running()` turns false. */
  run(running: () => boolean): Promise<void>;
  /** After every fault is healed: final reads. */
  finish(): Promise<void>;
  check(): WorkloadVerdict;
  /** The recorded history, written to the run directory. */
  history(): readonly unknown[];
}

/** How long a client that failed over stays away from its home agent before trying it again. */
const AWAY_MS = 5_000;

export class Client {
  private readonly home: number;
  private node: number;
  private awayUntil = 0;
  constructor(
    readonly id: number,
    private readonly ctx: WorkloadContext,
  ) {
    this.home = ctx.firstEndpoint();
    this.node = this.home;
  }

  async call(method: string, path: string, body?: string): Promise<HttpOutcome> {
    const { endpoints } = this.ctx.cluster;
    if (this.node !== this.home && this.ctx.now() >= this.awayUntil) this.node = this.home;
    const endpoint = this.node % endpoints.length;
    const outcome = await httpCall(`${endpoints[endpoint]!}${path}`, method, body, this.ctx.requestTimeoutMs);
    const failed = outcome.kind === "failure" || outcome.status >= 500;
    this.ctx.countRequest(endpoint, !failed);
    // Another endpoint at random, so that failovers do not pile every client onto the agent after a dead one.
    if (failed) {
      this.node = (endpoint + 1 + this.ctx.rng.int(0, endpoints.length - 2)) % endpoints.length;
      if (endpoint === this.home % endpoints.length) this.awayUntil = this.ctx.now() + AWAY_MS;
    }
    return outcome;
  }
}

export interface KvEntry {
  readonly key: string;
  readonly value: string | null;
  readonly modifyIndex: number;
}

/** Entries of a KV GET answer (Consul's JSON array, values in base64). */
export function parseKvEntries(body: string): KvEntry[] {
  const parsed: unknown = JSON.parse(body);
  if (!Array.isArray(parsed)) throw new Error(`KV answer is not an array: ${body.slice(0, 100)}`);
  return parsed.map((e: unknown) => {
    if (typeof e !== "object" || e === null) throw new Error("KV entry is not an object");
    const { Key, Value, ModifyIndex } = e as { Key?: unknown; Value?: unknown; ModifyIndex?: unknown };
    if (typeof Key !== "string" || typeof ModifyIndex !== "number")
      throw new Error("KV entry lacks Key/ModifyIndex");
    return {
      key: Key,
      value: typeof Value === "string" ? Buffer.from(Value, "base64").toString() : null,
      modifyIndex: ModifyIndex,
    };
  });
}

/** A consistent read of one key: its entry, null when absent, undefined when the outcome is unknown. */
export async function readKey(client: Client, key: string): Promise<KvEntry | null | undefined> {
  const r = await client.call("GET", `/v1/kv/${key}?consistent`);
  if (r.kind !== "reply") return undefined;
  if (r.status === 404) return null;
  if (r.status !== 200) return undefined;
  return parseKvEntries(r.body)[0] ?? null;
}

/** A KV PUT whose answer is `true`/`false`; undefined when the outcome is unknown. */
export async function putKey(
  client: Client,
  pathAndQuery: string,
  value?: string,
): Promise<boolean | undefined> {
  const r = await client.call("PUT", `/v1/kv/${pathAndQuery}`, value);
  if (r.kind !== "reply" || r.status !== 200) return undefined;
  const body = r.body.trim();
  return body === "true" ? true : body === "false" ? false : undefined;
}
