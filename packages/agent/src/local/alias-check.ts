import type { HealthStatus } from "@cairn/fsm";
import type { Clock } from "./clock.js";
import { DEFAULT_OUTPUT_MAX, type ProbeResult } from "./probes.js";
import type { CheckRunner } from "./runners.js";

/** What an alias check follows: a service (by ID) on a node, or a node's own checks (`serviceId` ""). */
export interface AliasTarget {
  /** "" for this agent's own services and checks. */
  readonly node: string;
  readonly serviceId: string;
  readonly namespace: string;
}

/** The fields of a check record an alias reads. */
export interface AliasedCheck {
  readonly Node: string;
  readonly CheckID: string;
  readonly Name: string;
  readonly Status: HealthStatus | string;
  readonly Output: string;
  readonly ServiceID: string;
  readonly Namespace?: string;
}

/**
 * Consul's alias rule over a node's checks: any critical check of the service (or of the node itself) makes
 * the alias critical, else any warning makes it warning, else it passes; a service with no checks passes
 * if it exists, and is critical when it does not. `self` is the alias's own check ID on this node, which is
 * never its own input (a node-level alias of a local service would otherwise follow itself, as Consul's
 * does); the output is cut at Consul's default output size so that aliases of each other cannot grow it.
 */
export function aliasStatus(
  target: AliasTarget,
  checks: readonly AliasedCheck[],
  serviceExists: () => boolean,
  self?: { node: string; checkId: string },
): ProbeResult {
  let status: HealthStatus = "passing";
  let output = "No checks found.";
  let serviceFound = false;
  for (const check of checks) {
    if (self && check.CheckID === self.checkId && sameNode(check.Node, self.node)) continue;
    if (target.node !== "" && !sameNode(target.node, check.Node)) continue;
    const matches =
      check.ServiceID === target.serviceId && (check.Namespace || "default") === target.namespace;
    if (check.ServiceID !== "" && !matches) continue;
    if (matches) serviceFound = true;
    if (check.Status === "critical" || check.Status === "warning") {
      status = check.Status;
      output = `Aliased check "${check.Name}" failing: ${check.Output}`;
      if (check.Status === "critical") break;
    } else if (status === "passing") {
      output = "All checks passing.";
    }
  }
  if (!serviceFound && !serviceExists()) {
    return {
      status: "critical",
      output: `Service ${target.serviceId} could not be found on node ${target.node}`,
    };
  }
  return { status, output: output.slice(0, DEFAULT_OUTPUT_MAX) };
}

function sameNode(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Consul re-reads an alias of a local service at least this often, in case a change went unnoticed. */
const LOCAL_REFRESH_MS = 60_000;

/**
 * An alias of a service on this agent: recomputed from the agent's own checks whenever they or its services
 * change (the agent calls `changed()`), and at least once a minute.
 */
export class LocalAliasRunner implements CheckRunner {
  private timer: unknown;
  private pending = false;
  private stopped = false;

  constructor(
    private readonly target: AliasTarget,
    private readonly self: { node: string; checkId: string },
    private readonly clock: Clock,
    private readonly read: () => { checks: readonly AliasedCheck[]; serviceExists: (id: string) => boolean },
    private readonly report: (result: ProbeResult) => void,
  ) {
    this.changed();
  }

  /** Something the alias may follow changed: recompute once, after the change is complete. */
  changed(): void {
    if (this.pending || this.stopped) return;
    this.pending = true;
    queueMicrotask(() => {
      this.pending = false;
      if (this.stopped) return;
      this.update();
    });
  }

  private update(): void {
    const { checks, serviceExists } = this.read();
    this.report(aliasStatus(this.target, checks, () => serviceExists(this.target.serviceId), this.self));
    this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => this.changed(), LOCAL_REFRESH_MS);
  }

  stop(): void {
    this.stopped = true;
    this.clock.clearTimeout(this.timer);
  }
}

/** A request to the cluster's HTTP API, as this agent makes it (a client agent's go to a server). */
export type CatalogFetch = (request: Request) => Promise<Response>;

/** Consul's alias backoff: after this many failures in a row, wait 2^(n-3) s, at most a minute. */
const BACKOFF_AFTER = 3;
const MAX_BACKOFF_MS = 60_000;
/** How long each blocking query waits for a change (Consul: a minute). */
const WAIT = "60s";
/** The pause after an answer whose index did not move. */
const UNMOVED_PAUSE_MS = 1_000;

/**
 * An alias of a service or node in the catalog (AliasNode set): a blocking query on the node's checks
 * (`/v1/health/node/:node`, stale reads allowed, as Consul's alias does), re-issued with the last index, so
 * the alias follows every change; whether a service without checks exists is asked of `/v1/catalog/node`.
 * Failures to read turn the alias critical from the second one in a row, with the reason.
 */
export class RemoteAliasRunner implements CheckRunner {
  private readonly abort = new AbortController();
  private stopped = false;

  constructor(
    private readonly target: AliasTarget,
    private readonly self: { node: string; checkId: string },
    private readonly clock: Clock,
    private readonly fetch: CatalogFetch | undefined,
    private readonly token: () => string,
    private readonly report: (result: ProbeResult) => void,
  ) {
    void this.run();
  }

  private async run(): Promise<void> {
    let index = "0";
    let failures = 0;
    while (!this.stopped) {
      if (failures > BACKOFF_AFTER) {
        await this.sleep(Math.min(2 ** (failures - BACKOFF_AFTER) * 1000, MAX_BACKOFF_MS));
        if (this.stopped) return;
      }
      try {
        const path = `/v1/health/node/${encodeURIComponent(this.target.node)}`;
        const answer = await this.get(`${path}?stale&index=${index}&wait=${WAIT}${this.nsParam()}`);
        const checks = (await answer.json()) as AliasedCheck[] | null;
        failures = 0;
        const sent = index;
        // Index 1 at the least, so a query always blocks (no hot loop).
        const next = answer.headers.get("X-Consul-Index") ?? "1";
        index = next === "0" ? "1" : next;
        const exists = await this.serviceExists(checks ?? []);
        if (!this.stopped) this.report(aliasStatus(this.target, checks ?? [], () => exists, this.self));
        // An answer that did not move past the index sent came without blocking (a store still catching
        // up after a restart answers so) or at the end of the wait: pause before asking again. In-process
        // the whole round trip is promises, and asking again at once would starve the event loop.
        if (sent !== "0" && BigInt(index) <= BigInt(sent)) await this.sleep(UNMOVED_PAUSE_MS);
      } catch (err) {
        if (this.stopped) return;
        failures++;
        if (failures > 1) {
          this.report({
            status: "critical",
            output: `Failure checking aliased node or service: ${(err as Error).message}`,
          });
        }
      }
    }
  }

  /** Whether the service exists on the node, asked only when none of its checks did say so. */
  private async serviceExists(checks: readonly AliasedCheck[]): Promise<boolean> {
    const { serviceId, namespace } = this.target;
    if (checks.some((c) => c.ServiceID === serviceId && (c.Namespace || "default") === namespace))
      return true;
    try {
      const answer = await this.get(
        `/v1/catalog/node/${encodeURIComponent(this.target.node)}?stale${this.nsParam()}`,
      );
      const node = (await answer.json()) as { Services?: Record<string, unknown> } | null;
      return node?.Services !== undefined && Object.hasOwn(node.Services, serviceId);
    } catch {
      // As Consul: when it cannot be told, the service is taken to exist.
      return true;
    }
  }

  private async get(path: string): Promise<Response> {
    if (this.fetch === undefined) throw new Error("this agent has no catalog to ask");
    const token = this.token();
    // One controller per request: a Request made with a long-lived signal leaves a listener on it.
    const controller = new AbortController();
    const request = new Request(`http://agent${path}`, {
      signal: controller.signal,
      headers: token ? { "X-Consul-Token": token } : {},
    });
    // Not every path to a server honours the signal: stopping must not wait for a held query to end.
    const stopped = this.abort.signal;
    let onStop = () => {};
    const cancelled = new Promise<never>((_resolve, reject) => {
      onStop = () => {
        controller.abort();
        reject(new Error("alias check stopped"));
      };
      stopped.addEventListener("abort", onStop, { once: true });
    });
    let answer: Response;
    try {
      answer = await Promise.race([this.fetch(request), cancelled]);
    } finally {
      stopped.removeEventListener("abort", onStop);
    }
    if (!answer.ok) throw new Error(`${answer.status} ${(await answer.text()).trim()}`);
    return answer;
  }

  private nsParam(): string {
    return this.target.namespace === "default" ? "" : `&ns=${encodeURIComponent(this.target.namespace)}`;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.abort.signal;
      const onAbort = () => {
        this.clock.clearTimeout(timer);
        resolve();
      };
      const timer = this.clock.setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }
}
