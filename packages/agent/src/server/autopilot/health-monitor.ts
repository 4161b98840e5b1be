import type { AutopilotHealthView } from "@cairn/api";
import { formatDuration } from "@cairn/duration";
import type { RaftNodeStatus } from "@cairn/raft";
import type { MembershipView } from "../../membership/types.js";
import {
  failureTolerance,
  type HealthThresholds,
  isServerHealthy,
  type ServerObservation,
} from "./server-health.js";
import { serverMembers } from "./server-status.js";

/** The parts of the Raft node the monitor reads. */
export interface ObservedRaft {
  status(): RaftNodeStatus;
  addressOf(id: string): string | undefined;
}

export interface HealthMonitorOptions {
  /** Undefined while Raft has not started. */
  raft: () => ObservedRaft | undefined;
  /** Without gossip, a server counts as alive while the leader is connected to it. */
  membership?: MembershipView;
  serverNames: () => ReadonlyMap<string, string>;
  thresholds: () => HealthThresholds;
  now: () => number;
  sampleEveryMs: number;
}

/** The health report, in the shape /v1/operator/autopilot/health answers. */
export type HealthReport = AutopilotHealthView;

/** Samples between two full health evaluations (which keep StableSince current without a request). */
const EVALUATE_EVERY = 10;

interface Contact {
  at: number;
  term: number;
}

/**
 * Autopilot's view of server health on the leader. Raft reports no per-follower contact time, so the monitor
 * samples the leader's replication progress: a follower that answered since the last quorum check
 * (`recentActive`) over a live connection is in contact now, at the leader's term. Each sample also
 * re-evaluates health, so StableSince marks when a server's health last changed.
 */
export class HealthMonitor {
  private timer: NodeJS.Timeout | undefined;
  private readonly contacts = new Map<string, Contact>();
  private readonly stable = new Map<string, { healthy: boolean; since: number }>();
  private startedAt: number;

  constructor(private readonly options: HealthMonitorOptions) {
    this.startedAt = options.now();
  }

  start(): void {
    this.startedAt = this.options.now();
    let ticks = 0;
    this.timer = setInterval(() => {
      // Contact is sampled every tick; the full evaluation (gossip members included) once per EVALUATE_EVERY.
      if (++ticks % EVALUATE_EVERY === 0) this.report();
      else {
        const status = this.options.raft()?.status();
        if (status) this.sample(status, this.options.now());
      }
    }, this.options.sampleEveryMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.contacts.clear();
    this.stable.clear();
  }

  /** Samples the leader's state now and reports every server of the Raft configuration. */
  report(): HealthReport {
    const raft = this.options.raft();
    if (!raft) return { Healthy: false, FailureTolerance: 0, Servers: [] };
    const status = raft.status();
    const now = this.options.now();
    this.sample(status, now);
    const names = this.options.serverNames();
    const members = this.options.membership
      ? serverMembers(this.options.membership.lanMembers(), names)
      : undefined;
    const leader = { term: status.term, lastIndex: status.lastIndex };
    const thresholds = this.options.thresholds();
    const observe = (id: string, voter: boolean): ServerObservation => {
      const self = id === status.id;
      const member = members?.get(id);
      const contact = this.contacts.get(id);
      return {
        id,
        name: member?.name ?? names.get(id) ?? "",
        address: raft.addressOf(id) ?? "",
        serfStatus:
          member?.status ?? (members ? "none" : self || status.connected.includes(id) ? "alive" : "failed"),
        version: (member?.tags.build ?? "").split(":")[0] ?? "",
        leader: self && status.role === "leader",
        voter,
        lastContactMs: self ? 0 : now - (contact?.at ?? this.startedAt),
        lastTerm: self ? status.term : (contact?.term ?? 0),
        lastIndex: self ? status.lastIndex : (status.progress?.[id]?.match ?? 0),
      };
    };
    const observed = [
      ...status.conf.voters.map((id) => observe(id, true)),
      ...status.conf.learners.map((id) => observe(id, false)),
    ];
    const servers = observed.map((s) => {
      const healthy = isServerHealthy(s, leader, thresholds);
      return { s, healthy, since: this.stableSince(s.id, healthy, now) };
    });
    for (const id of this.stable.keys()) if (!observed.some((s) => s.id === id)) this.stable.delete(id);
    return {
      Healthy: servers.every((x) => x.healthy),
      FailureTolerance: failureTolerance(servers.map((x) => ({ voter: x.s.voter, healthy: x.healthy }))),
      Servers: servers.map(({ s, healthy, since }) => ({
        ID: s.id,
        Name: s.name,
        Address: s.address,
        SerfStatus: s.serfStatus,
        Version: s.version,
        Leader: s.leader,
        LastContact: formatDuration(Math.max(0, s.lastContactMs) * 1_000_000),
        LastTerm: s.lastTerm,
        LastIndex: s.lastIndex,
        Healthy: healthy,
        Voter: s.voter,
        StableSince: new Date(since).toISOString(),
      })),
    };
  }

  private sample(status: RaftNodeStatus, now: number): void {
    if (status.role !== "leader") return;
    for (const [id, progress] of Object.entries(status.progress ?? {}))
      if (progress.recentActive && status.connected.includes(id))
        this.contacts.set(id, { at: now, term: status.term });
  }

  private stableSince(id: string, healthy: boolean, now: number): number {
    const previous = this.stable.get(id);
    if (previous?.healthy === healthy) return previous.since;
    this.stable.set(id, { healthy, since: now });
    return now;
  }
}
