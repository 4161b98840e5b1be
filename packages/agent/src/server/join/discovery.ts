import type { Logger } from "pino";
import { Pause } from "../../pause.js";
import { askToJoin, sayHello } from "./join-client.js";
import { isNewcomer, primaryMismatch, type ServerInfo, withDefaultPort } from "./protocol.js";

const HELLO_TIMEOUT_MS = 2_000;
/** Rounds at this pace first, then at retry_interval, as Consul retries quickly at start. */
const FAST_ROUND_MS = 1_000;
const FAST_ROUNDS = 30;

export interface DiscoveryOptions {
  self: () => ServerInfo;
  /** retry_join addresses (`host` or `host:port`). */
  retryJoin: readonly string[];
  /** Port of an address given without one (serf_lan). */
  defaultPort: number;
  retryIntervalMs: number;
  /** retry_max: rounds without a single answer before giving up; 0 retries forever. */
  retryMax: number;
  log: Logger;
  /** A server of this datacenter was heard of for the first time (gossip joins it too). */
  discovered?: (info: ServerInfo) => void;
  /** This server must not join: its configuration conflicts with the cluster's (the reason names the key). */
  refused?: (reason: string) => void;
}

/** retry_max rounds went by without any retry_join target answering. */
export class RetryJoinExhaustedError extends Error {
  override readonly name = "RetryJoinExhaustedError";
}

/**
 * What this server knows of the others: retry_join targets, servers that said hello, and the servers those
 * know of. A round says hello to every target and records the answers.
 */
export class Discovery {
  private readonly peers = new Map<string, ServerInfo>();
  private readonly targets = new Set<string>();
  private rounds = 0;
  private answered = false;
  private stopped = false;
  private readonly pause = new Pause();

  constructor(private readonly options: DiscoveryOptions) {
    for (const a of options.retryJoin) {
      // Cloud auto-join ("provider=aws tag_key=...") needs the provider's API; Cairn does not have it.
      if (a.includes("provider="))
        options.log.warn({ retryJoin: a }, "cloud auto-join is not supported; skipping");
      else this.targets.add(withDefaultPort(a, options.defaultPort));
    }
  }

  /** A server said hello to this one. */
  heard(info: ServerInfo): void {
    if (info.id === this.options.self().id) return;
    if (this.conflicts(info)) return;
    this.remember(info);
    this.targets.add(info.joinAddress);
  }

  /** A server's join address learned elsewhere (gossip): the next rounds say hello to it. */
  target(joinAddress: string): void {
    if (joinAddress !== this.options.self().joinAddress && !this.targets.has(joinAddress)) {
      this.targets.add(joinAddress);
      this.pause.wake();
    }
  }

  known(): ServerInfo[] {
    return [...this.peers.values()];
  }

  knownAddresses(): string[] {
    return [...this.peers.values()].map((p) => p.joinAddress);
  }

  async round(): Promise<void> {
    const self = this.options.self();
    await Promise.all(
      [...this.targets]
        .filter((t) => t !== self.joinAddress)
        .map(async (target) => {
          try {
            const { info, known } = await sayHello(target, self, HELLO_TIMEOUT_MS);
            if (info.datacenter !== self.datacenter) {
              this.options.log.warn(
                { target, datacenter: info.datacenter },
                "ignoring a server of another datacenter",
              );
              return;
            }
            if (this.conflicts(info)) return;
            this.answered = true;
            if (info.id !== self.id) this.remember(info);
            for (const a of known) if (a !== self.joinAddress) this.targets.add(a);
          } catch (err) {
            this.options.log.debug({ target, err: (err as Error).message }, "join attempt failed");
          }
        }),
    );
    this.rounds++;
  }

  /**
   * Runs rounds until `until()` holds after one; resolves false if stopped first. Throws
   * RetryJoinExhaustedError once retry_max rounds have passed without any target answering, as Consul gives up.
   */
  async repeat(until: () => boolean | Promise<boolean>): Promise<boolean> {
    while (!this.stopped) {
      await this.round();
      if (this.stopped) return false;
      if (await until()) return true;
      const { retryMax } = this.options;
      if (retryMax > 0 && !this.answered && this.targets.size > 0 && this.rounds >= retryMax) {
        throw new RetryJoinExhaustedError(`retry_join: no server answered after ${retryMax} attempts`);
      }
      await this.pause.wait(this.rounds < FAST_ROUNDS ? FAST_ROUND_MS : this.options.retryIntervalMs);
    }
    return false;
  }

  /**
   * Asks servers with Raft state to add this one as a non-voter, until `isMember()` (it appears in the
   * configuration it replicates). Any member forwards the request to the leader.
   */
  async joinCluster(isMember: () => boolean): Promise<boolean> {
    const self = this.options.self();
    return this.repeat(async () => {
      if (isMember()) return true;
      const formed = this.known().filter((p) => p.hasState);
      formed.sort((a, b) => Number(b.leader === b.id) - Number(a.leader === a.id));
      for (const peer of formed) {
        try {
          await askToJoin(peer.joinAddress, self.id, self.rpcAddress, HELLO_TIMEOUT_MS * 5);
          this.options.log.info({ via: peer.name }, "asked the cluster to add this server");
          return true;
        } catch (err) {
          this.options.log.debug({ via: peer.name, err: (err as Error).message }, "join request failed");
        }
      }
      return false;
    });
  }

  /**
   * A server of this datacenter that names another primary datacenter: the newcomer is refused (its
   * start fails with the reason), a formed cluster's member ignores it.
   */
  private conflicts(info: ServerInfo): boolean {
    const self = this.options.self();
    const reason = primaryMismatch(self, info);
    if (reason === undefined) return false;
    if (isNewcomer(self)) {
      this.options.log.error({ peer: info.name }, reason);
      this.options.refused?.(reason);
      this.stop();
    } else {
      this.options.log.warn({ peer: info.name }, `ignoring a server that cannot join: ${reason}`);
    }
    return true;
  }

  private remember(info: ServerInfo): void {
    const known = this.peers.get(info.id);
    this.peers.set(info.id, info);
    if (known?.joinAddress !== info.joinAddress) this.options.discovered?.(info);
  }

  stop(): void {
    this.stopped = true;
    this.pause.wake();
  }
}
