import { type Owner, SimScheduler, type VirtualClock } from "@cairn/testkit";
import pino from "pino";
import type { Entry, NodeId, Role } from "../../src/core/types.js";
import type { TransportInbound } from "../../src/node/ports.js";
import { RaftNode, type RaftNodeOptions } from "../../src/node.js";
import { type Disk, durableEntryTerm, emptyDisk, SimStorage } from "./sim-storage.js";
import { type NetworkHost, type SimRaftNetwork, SimTransport } from "./sim-transport.js";
import { SimStateMachine, type SmResult, type SmState } from "./state-machine.js";

const silent = pino({ level: "silent" });

/** Driver settings a simulation picks for its servers (the rest is the simulation's own wiring). */
export type SimNodeOptions = Omit<
  RaftNodeOptions<SmResult>,
  "id" | "stateMachine" | "logger" | "random" | "peers"
>;

/** What a simulated server reports to the simulation around it (checks, statistics, crashes). */
export interface ServerWorld {
  readonly clock: VirtualClock;
  readonly network: SimRaftNetwork;
  /** Schedules the fsync of `s`'s write, possibly crashing `s` just before or after it lands. */
  sync(s: SimServer, owner: Owner, land: () => void): Promise<void>;
  persisted(s: SimServer, entries: Entry[], prevTerm: number): void;
  applied(s: SimServer, index: number, term: number): void;
  /** The state machine was restored from a snapshot: at start (`atStart`) or installed from the leader. */
  restored(s: SimServer, sm: SmState, atStart: boolean): void;
  fail(message: string): void;
}

/**
 * One simulated server: a disk that survives its crashes, and, while it runs, a real RaftNode over that
 * disk (SimStorage), the simulated network (SimTransport) and simulated time (SimScheduler). A crash drops
 * the process: its pending events and writes die with it, what was fsynced stays.
 */
export class SimServer implements NetworkHost {
  readonly disk: Disk = emptyDisk();
  node: RaftNode<SmResult, SimTransport> | null = null;
  process: { inbound: TransportInbound; owner: Owner } | null = null;
  sm: SmState = { index: 0, hash: 0 };
  /** Bumped at every start. */
  incarnation = 0;
  /** Shut down for good (removed from the cluster). */
  retired = false;
  /** Simulated process stall (GC pause, SIGSTOP): nothing of it runs before this time. */
  pausedUntil = 0;
  /** Held back from its clock: stalled time a non-compensating driver never notices (timing runs). */
  lag = 0;
  /** Bumped at every start and crash: events of an ended life are void. */
  private life = 0;

  constructor(
    readonly id: NodeId,
    private readonly options: SimNodeOptions,
    private readonly peers: () => Record<NodeId, string>,
    private readonly random: () => number,
    private readonly world: ServerWorld,
    /** Voters of a brand-new cluster (the driver ignores it once the disk holds state). */
    private readonly bootstrap?: NodeId[],
  ) {}

  get alive(): boolean {
    return this.node !== null;
  }

  /** The driver's core, for the checker's eyes only. */
  get core(): RaftNode<SmResult, SimTransport>["core"] | null {
    return this.node?.core ?? null;
  }

  get durable(): Disk {
    return this.disk;
  }

  get files(): ReadonlyMap<string, Uint8Array> {
    return this.disk.files;
  }

  role(): Role | null {
    return this.node?.core.status(false).role ?? null;
  }

  /** Starts a process on the disk; it runs once this event's continuations have (RaftNode.open is async). */
  start(): void {
    this.incarnation++;
    const life = ++this.life;
    const self = this;
    const owner: Owner = {
      get live() {
        return self.life === life;
      },
      get pausedUntil() {
        return self.pausedUntil;
      },
      server: this.id,
    };
    const { clock, network } = this.world;
    const scheduler = new SimScheduler(clock, owner, () => this.lag);
    const storage = new SimStorage(this.disk, {
      sync: (land) => this.world.sync(this, owner, land),
      persisted: (entries, prevTerm) => this.world.persisted(this, entries, prevTerm),
    });
    const transport = new SimTransport(network, this, owner);
    let opening = true;
    const stateMachine = new SimStateMachine({
      get sm() {
        return self.sm;
      },
      set sm(v: SmState) {
        self.sm = v;
      },
      durableTerm: (index) => this.durableTerm(index),
      files: this.disk.files,
      applied: (index, term) => this.world.applied(this, index, term),
      restored: (sm) => this.world.restored(this, sm, opening),
      fail: (message) => this.world.fail(`${this.id}: ${message}`),
    });
    this.sm = { index: 0, hash: 0 };
    RaftNode.open<SmResult, SimTransport>(
      {
        ...this.options,
        id: this.id,
        peers: this.peers(),
        ...(this.bootstrap ? { bootstrap: this.bootstrap } : {}),
        stateMachine,
        logger: silent,
        random: this.random,
        incarnation: String(this.incarnation),
      },
      { storage, transport, scheduler },
    ).then(
      (node) => {
        opening = false;
        if (this.life !== life) return;
        this.node = node;
        this.process = { inbound: transport.attached!, owner };
        network.started(this);
        // As the server agent does for a joining server: dial every server it knows of, as members to be
        // (they learn its address from the hello, before any of them applies the entry that adds it).
        if (!this.bootstrap && this.incarnation === 1)
          for (const [id, address] of Object.entries(this.peers())) node.transport.setPeer(id, address);
        node.on("fatal", (err) => this.world.fail(`${this.id}: driver stopped: ${err.stack ?? err.message}`));
      },
      (err: Error) => this.world.fail(`${this.id}: cannot start: ${err.stack ?? err.message}`),
    );
  }

  crash(): void {
    this.life++;
    if (this.process) this.world.network.stopped(this);
    this.node = null;
    this.process = null;
    this.pausedUntil = 0;
  }

  private durableTerm(index: number): number | undefined {
    return durableEntryTerm(this.disk, index);
  }
}
