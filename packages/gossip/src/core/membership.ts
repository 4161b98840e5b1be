import { Awareness } from "./awareness.js";
import { BroadcastQueue } from "./broadcast-queue.js";
import { type GossipConfig, pushPullScale, retransmitLimit, suspicionTimeout } from "./config.js";
import { Suspicion } from "./suspicion.js";
import type {
  CoreEvent,
  Member,
  MemberSnapshot,
  MemberState,
  Message,
  Output,
  PingDelegate,
  Tags,
} from "./types.js";

export interface MembershipOptions {
  name: string;
  address: string;
  config: GossipConfig;
  /** Uniform in [0, 1); injected so simulations are reproducible. */
  random: () => number;
  now: number;
  tags?: Tags;
  pingDelegate?: PingDelegate;
}

interface MemberRecord {
  name: string;
  address: string;
  incarnation: number;
  state: MemberState;
  stateChangedAt: number;
  tags: Tags;
}

interface Probe {
  seq: number;
  target: MemberRecord;
  startedAt: number;
  directDeadline: number;
  deadline: number;
  indirectSent: boolean;
  expectedNacks: number;
  nacks: number;
}

interface Relay {
  origin: string;
  originSeq: number;
  deadline: number;
}

/** Room left in a packet for the probe message itself before piggybacked broadcasts. */
const PROBE_OVERHEAD = 200;
/** A push-pull reply later than this (ms) is ignored. */
const PUSH_PULL_REPLY_WINDOW = 60_000;
/** User broadcasts remembered for de-duplication. */
const SEEN_USER_MESSAGES = 4096;

/**
 * The SWIM membership state machine with Lifeguard's refinements, following hashicorp/memberlist's rules.
 * Pure: no timers and no I/O. The driver calls `tick(now)` at `nextDeadline()` and `receive(...)` for each
 * packet; both return packets to send and events. Clock and randomness are injected.
 *
 * State rules (memberlist's aliveNode / suspectNode / deadNode):
 * - alive{inc}: about another member, applied only if inc > known incarnation (or the known entry has left,
 *   or has been dead for `deadNodeReclaimTime`, when the address changes). About ourselves: if it does not
 *   match exactly what we announce, we refute.
 * - suspect{inc}: ignored if inc < known incarnation or the member is not alive; if already suspected, it
 *   counts as an independent confirmation (shortening the timer). About ourselves: refute.
 * - dead{inc}: ignored if inc < known incarnation or the member is already dead/left (except a leave for a
 *   dead member, which force-leave relies on). About ourselves while not leaving: refute.
 * - refute: our incarnation becomes max(ours + 1, accused + 1) and alive is broadcast. Only the member itself
 *   ever announces alive at a new incarnation, so one forged suspect/dead claim is always overridden by the
 *   member's refutation, and claims about an older incarnation are ignored.
 * - push-pull merges: alive as alive, left as a leave, and dead as only suspect, so one peer's stale view
 *   cannot kill a member outright.
 * Additions: a leave also moves a dead member to left (force-leave); a stale suspect/dead claim is answered
 * with the newer alive (see correctStaleClaim); failed members are retried now and then (Serf's reconnect).
 */
export class Membership {
  private readonly config: GossipConfig;
  private readonly random: () => number;
  private readonly pingDelegate: PingDelegate | undefined;
  private readonly local: MemberRecord;
  private readonly members = new Map<string, MemberRecord>();
  private readonly queue: BroadcastQueue;
  private readonly awareness: Awareness;
  private readonly suspicions = new Map<string, Suspicion>();
  private readonly relays = new Map<number, Relay>();
  /** Push-pulls awaiting a reply: seq → whether it was a join, and when it was sent. */
  private readonly pendingPushPulls = new Map<number, { join: boolean; sentAt: number }>();
  private readonly seenUser = new Set<string>();
  private probeOrder: string[] = [];
  private probeIndex = 0;
  private probe: Probe | undefined;
  private nextProbeAt: number;
  private nextGossipAt: number;
  private nextPushPullAt: number;
  private nextReconnectAt: number;
  private seq = 0;
  private userSeq = 0;
  private live = 1;
  private leaving = false;
  private now: number;
  private out: Output = { send: [], events: [] };

  constructor(options: MembershipOptions) {
    this.config = options.config;
    this.random = options.random;
    this.pingDelegate = options.pingDelegate;
    this.now = options.now;
    this.queue = new BroadcastQueue(this.config.maxQueuedBroadcasts);
    this.awareness = new Awareness(this.config.awarenessMaxMultiplier);
    this.local = {
      name: options.name,
      address: options.address,
      incarnation: 0,
      state: "alive",
      stateChangedAt: options.now,
      tags: { ...options.tags },
    };
    this.members.set(this.local.name, this.local);
    // Stagger the periodic work so members started together do not act in lockstep.
    this.nextProbeAt = options.now + Math.floor(this.random() * this.config.probeInterval);
    this.nextGossipAt = options.now + Math.floor(this.random() * this.config.gossipInterval);
    this.nextPushPullAt = options.now + Math.floor(this.random() * this.config.pushPullInterval);
    this.nextReconnectAt = options.now + this.config.reconnectInterval;
  }

  get name(): string {
    return this.local.name;
  }

  // ---- driver entry points ----

  tick(now: number): Output {
    return this.step(now, () => {
      this.tickProbe();
      this.tickRelays();
      this.tickSuspicions();
      if (this.now >= this.nextGossipAt) this.gossip();
      if (this.config.pushPullInterval > 0 && this.now >= this.nextPushPullAt) this.periodicPushPull();
      if (this.config.reconnectInterval > 0 && this.now >= this.nextReconnectAt) this.reconnect();
    });
  }

  receive(from: string, packet: readonly Message[], now: number): Output {
    return this.step(now, () => {
      for (const message of packet) this.handle(from, message);
    });
  }

  /** Starts a full-state sync with each address; `push-pull-complete` events carry the returned seqs. */
  join(addresses: readonly string[], now: number): Output & { seqs: number[] } {
    const seqs: number[] = [];
    const output = this.step(now, () => {
      for (const address of addresses) seqs.push(this.sendPushPull(address, true));
    });
    return { ...output, seqs };
  }

  /** Graceful leave: broadcasts our own death with from = us; the driver waits for it to spread, then stops. */
  leave(now: number): Output {
    return this.step(now, () => {
      if (this.leaving) return;
      this.leaving = true;
      this.probe = undefined;
      this.deadNode({
        t: "dead",
        node: this.local.name,
        incarnation: this.local.incarnation,
        from: this.local.name,
      });
    });
  }

  /** Tag updates bump our incarnation so they win over the older alive everywhere. */
  setTags(tags: Tags, now: number): Output {
    return this.step(now, () => {
      this.local.tags = { ...tags };
      this.local.incarnation++;
      this.broadcastLocalAlive();
    });
  }

  /**
   * Consul's force-leave: a failed member is marked left and the leave is broadcast; `prune` also forgets it
   * here at once (others reap it after `reapLeftAfter`). A live member is sent the leave intent itself, as
   * Serf's broadcast reaches it: it refutes with a newer incarnation, so it stays alive everywhere (nothing
   * changes here, and the cluster never sees it leave).
   */
  forceLeave(name: string, prune: boolean, now: number): Output & { changed: boolean } {
    let changed = false;
    const output = this.step(now, () => {
      const member = this.members.get(name);
      if (!member || member === this.local) return;
      if (member.state === "alive" || member.state === "suspect") {
        const { incarnation, address } = member;
        this.out.send.push({ to: address, packet: [{ t: "dead", node: name, incarnation, from: name }] });
        return;
      }
      changed = true;
      this.deadNode({ t: "dead", node: name, incarnation: member.incarnation, from: name });
      if (prune) this.reap(member);
    });
    return { ...output, changed };
  }

  /** Queues an application payload for epidemic dissemination (each member re-broadcasts it once). */
  broadcast(payload: unknown): void {
    const id = ++this.userSeq;
    this.remember(`${this.local.name}/${id}`);
    this.queue.enqueue(`user/${this.local.name}/${id}`, { t: "user", origin: this.local.name, id, payload });
  }

  /** Earliest time `tick` has work to do. */
  nextDeadline(): number {
    let next = Number.POSITIVE_INFINITY;
    if (this.probe) next = this.probe.indirectSent ? this.probe.deadline : this.probe.directDeadline;
    else if (!this.leaving) next = this.nextProbeAt;
    if (this.queue.size() > 0) next = Math.min(next, this.nextGossipAt);
    if (this.config.pushPullInterval > 0) next = Math.min(next, this.nextPushPullAt);
    if (this.config.reconnectInterval > 0) next = Math.min(next, this.nextReconnectAt);
    for (const relay of this.relays.values()) next = Math.min(next, relay.deadline);
    for (const suspicion of this.suspicions.values()) next = Math.min(next, suspicion.deadline());
    return next;
  }

  memberList(): Member[] {
    return [...this.members.values()].map(snapshotMember);
  }

  member(name: string): Member | undefined {
    const record = this.members.get(name);
    return record && snapshotMember(record);
  }

  localMember(): Member {
    return snapshotMember(this.local);
  }

  /** Members not known dead or left, ourselves included (memberlist's estimate of n). */
  liveCount(): number {
    return this.live;
  }

  healthScore(): number {
    return this.awareness.healthScore();
  }

  hasPendingBroadcast(key: string): boolean {
    return this.queue.has(key);
  }

  queuedBroadcasts(): number {
    return this.queue.size();
  }

  // ---- plumbing ----

  private step(now: number, work: () => void): Output {
    this.now = Math.max(this.now, now);
    this.out = { send: [], events: [] };
    work();
    return this.out;
  }

  private emit(event: CoreEvent): void {
    this.out.events.push(event);
  }

  /** Sends `messages` with as many queued broadcasts piggybacked as fit in the packet budget. */
  private send(to: string, messages: Message[]): void {
    const piggyback = this.queue.take(this.config.packetBudget - PROBE_OVERHEAD, this.transmitLimit());
    this.out.send.push({ to, packet: piggyback.length > 0 ? [...messages, ...piggyback] : messages });
  }

  private transmitLimit(): number {
    return retransmitLimit(this.config.retransmitMult, this.live);
  }

  private setState(member: MemberRecord, state: MemberState): void {
    const wasLive = member.state === "alive" || member.state === "suspect";
    const isLive = state === "alive" || state === "suspect";
    if (wasLive !== isLive) this.live += isLive ? 1 : -1;
    member.state = state;
    member.stateChangedAt = this.now;
  }

  // ---- probing ----

  private tickProbe(): void {
    const probe = this.probe;
    if (probe) {
      if (!probe.indirectSent && this.now >= probe.directDeadline) this.sendIndirectProbes(probe);
      if (this.now >= probe.deadline) this.probeFailed(probe);
    }
    if (!this.probe && !this.leaving && this.now >= this.nextProbeAt) this.startProbe();
  }

  private startProbe(): void {
    this.nextProbeAt = this.now + this.config.probeInterval;
    const target = this.nextProbeTarget();
    if (!target) return;
    const seq = ++this.seq;
    this.probe = {
      seq,
      target,
      startedAt: this.now,
      directDeadline: this.now + this.config.probeTimeout,
      // Lifeguard: a member that is itself unhealthy waits longer before concluding anything.
      deadline: this.now + this.awareness.scale(this.config.probeInterval),
      indirectSent: false,
      expectedNacks: 0,
      nacks: 0,
    };
    const messages: Message[] = [{ t: "ping", seq, node: target.name }];
    // A suspected member learns of it directly, so it can refute in time.
    if (target.state === "suspect") {
      messages.push({
        t: "suspect",
        node: target.name,
        incarnation: target.incarnation,
        from: this.local.name,
      });
    }
    this.send(target.address, messages);
  }

  /** Round-robin over a shuffled list (memberlist's order): every member is probed once per cycle. */
  private nextProbeTarget(): MemberRecord | undefined {
    for (let checked = 0; checked <= this.probeOrder.length; checked++) {
      if (this.probeIndex >= this.probeOrder.length) {
        this.resetProbeOrder();
        if (this.probeOrder.length === 0) return undefined;
      }
      const name = this.probeOrder[this.probeIndex++];
      const member = name === undefined ? undefined : this.members.get(name);
      if (member && member !== this.local && (member.state === "alive" || member.state === "suspect"))
        return member;
    }
    return undefined;
  }

  /** Once per probe cycle: reap long-dead members and reshuffle the order. */
  private resetProbeOrder(): void {
    for (const member of [...this.members.values()]) {
      const age = this.now - member.stateChangedAt;
      if (member.state === "dead" && age > this.config.reapFailedAfter) this.reap(member);
      else if (member.state === "left" && age > this.config.reapLeftAfter) this.reap(member);
    }
    this.probeOrder = [...this.members.keys()].filter((name) => name !== this.local.name);
    this.shuffle(this.probeOrder);
    this.probeIndex = 0;
  }

  private sendIndirectProbes(probe: Probe): void {
    probe.indirectSent = true;
    const helpers = this.randomMembers(
      this.config.indirectChecks,
      (m) => m.state === "alive" && m !== probe.target,
    );
    probe.expectedNacks = helpers.length;
    for (const helper of helpers) {
      this.send(helper.address, [
        { t: "ping-req", seq: probe.seq, node: probe.target.name, address: probe.target.address },
      ]);
    }
  }

  private probeFailed(probe: Probe): void {
    this.probe = undefined;
    // Lifeguard: helpers that stayed silent suggest the fault is ours; with no helpers any failure counts.
    const missedNacks = probe.expectedNacks > 0 ? Math.max(0, probe.expectedNacks - probe.nacks) : 1;
    this.awareness.applyDelta(missedNacks);
    const target = probe.target;
    this.suspectNode({
      t: "suspect",
      node: target.name,
      incarnation: target.incarnation,
      from: this.local.name,
    });
  }

  private onAck(from: string, seq: number, payload: unknown): void {
    const probe = this.probe;
    if (probe && probe.seq === seq) {
      this.probe = undefined;
      if (!probe.indirectSent || from === probe.target.address) {
        this.awareness.applyDelta(-1);
      }
      if (from === probe.target.address && payload !== undefined) {
        this.pingDelegate?.pingComplete(probe.target.name, this.now - probe.startedAt, payload);
      }
      return;
    }
    const relay = this.relays.get(seq);
    if (relay) {
      this.relays.delete(seq);
      this.send(relay.origin, [{ t: "ack", seq: relay.originSeq }]);
    }
  }

  private tickRelays(): void {
    for (const [seq, relay] of this.relays) {
      if (this.now < relay.deadline) continue;
      this.relays.delete(seq);
      this.send(relay.origin, [{ t: "nack", seq: relay.originSeq }]);
    }
  }

  // ---- dissemination ----

  private gossip(): void {
    this.nextGossipAt = this.now + this.config.gossipInterval;
    if (this.queue.size() === 0) return;
    const targets = this.randomMembers(this.config.gossipNodes, (m) => {
      if (m.state === "alive" || m.state === "suspect") return true;
      return this.now - m.stateChangedAt <= this.config.gossipToTheDeadTime;
    });
    for (const target of targets) {
      const messages = this.queue.take(this.config.packetBudget, this.transmitLimit());
      if (messages.length === 0) break;
      this.out.send.push({ to: target.address, packet: messages });
    }
  }

  private periodicPushPull(): void {
    this.nextPushPullAt = this.now + pushPullScale(this.config.pushPullInterval, this.live);
    if (this.leaving) return;
    const [peer] = this.randomMembers(1, (m) => m.state === "alive");
    if (peer) this.sendPushPull(peer.address, false);
  }

  /**
   * Serf's reconnect: probes and push-pulls only go to live members, so after a partition the two sides
   * would never speak again. Now and then sync with one failed member; if it is alive, the exchange makes
   * both sides suspect each other's stale entries, which their owners then refute.
   */
  private reconnect(): void {
    this.nextReconnectAt = this.now + this.config.reconnectInterval;
    if (this.leaving) return;
    const [failed] = this.randomMembers(1, (m) => m.state === "dead");
    if (failed) this.sendPushPull(failed.address, false);
  }

  private sendPushPull(address: string, join: boolean): number {
    const seq = ++this.seq;
    // A peer that never answers (it died, or the stream broke) must not leave its entry behind forever.
    for (const [pending, { sentAt }] of this.pendingPushPulls) {
      if (this.now - sentAt > PUSH_PULL_REPLY_WINDOW) this.pendingPushPulls.delete(pending);
    }
    this.pendingPushPulls.set(seq, { join, sentAt: this.now });
    this.out.send.push({
      to: address,
      packet: [{ t: "push-pull", seq, reply: false, join, states: this.snapshot() }],
    });
    return seq;
  }

  private snapshot(): MemberSnapshot[] {
    const states: MemberSnapshot[] = [];
    for (const m of this.members.values()) {
      states.push({
        node: m.name,
        address: m.address,
        incarnation: m.incarnation,
        state: m.state,
        tags: m.tags,
      });
    }
    return states;
  }

  private mergeRemoteState(states: readonly MemberSnapshot[]): void {
    for (const s of states) {
      if (s.state === "alive") {
        this.aliveNode({
          t: "alive",
          node: s.node,
          address: s.address,
          incarnation: s.incarnation,
          tags: s.tags,
        });
      } else if (s.state === "left") {
        this.deadNode({ t: "dead", node: s.node, incarnation: s.incarnation, from: s.node });
      } else {
        // Someone else's "dead" is only a suspicion here: we verify it ourselves.
        this.suspectNode({ t: "suspect", node: s.node, incarnation: s.incarnation, from: this.local.name });
      }
    }
  }

  // ---- message handling ----

  private handle(from: string, message: Message): void {
    switch (message.t) {
      case "ping":
        // A ping meant for another member (its address now ours) must not be acked on its behalf.
        if (message.node !== this.local.name) return;
        this.send(from, [{ t: "ack", seq: message.seq, payload: this.pingDelegate?.ackPayload() }]);
        return;
      case "ping-req": {
        const seq = ++this.seq;
        this.relays.set(seq, {
          origin: from,
          originSeq: message.seq,
          deadline: this.now + this.config.probeTimeout,
        });
        this.send(message.address, [{ t: "ping", seq, node: message.node }]);
        return;
      }
      case "ack":
        this.onAck(from, message.seq, message.payload);
        return;
      case "nack":
        if (this.probe?.seq === message.seq) this.probe.nacks++;
        return;
      case "alive":
        this.aliveNode(message);
        return;
      case "suspect":
        this.correctStaleClaim(from, message);
        this.suspectNode(message);
        return;
      case "dead":
        this.correctStaleClaim(from, message);
        this.deadNode(message);
        return;
      case "user":
        this.onUserMessage(message);
        return;
      case "push-pull":
        this.onPushPull(from, message);
        return;
      case "direct":
        this.emit({ type: "direct-message", from, payload: message.payload });
        return;
    }
  }

  /**
   * A suspect or dead claim about an incarnation older than the alive one we know means the sender missed
   * the refutation (rumours are probabilistic, and under loss one member occasionally misses one). Tell it
   * directly, so its stale suspicion cannot expire into a false death. An addition to memberlist, which
   * only has the periodic push-pull for this.
   */
  private correctStaleClaim(from: string, claim: { node: string; incarnation: number }): void {
    const member = this.members.get(claim.node);
    if (member?.state !== "alive" || claim.incarnation >= member.incarnation) return;
    const { name, address, incarnation, tags } = member;
    this.out.send.push({ to: from, packet: [{ t: "alive", node: name, address, incarnation, tags }] });
  }

  private onPushPull(from: string, message: Extract<Message, { t: "push-pull" }>): void {
    if (message.reply) {
      const pending = this.pendingPushPulls.get(message.seq);
      if (pending === undefined) return;
      this.pendingPushPulls.delete(message.seq);
      this.mergeRemoteState(message.states);
      this.emit({ type: "push-pull-complete", seq: message.seq, join: pending.join });
      return;
    }
    this.out.send.push({
      to: from,
      packet: [
        { t: "push-pull", seq: message.seq, reply: true, join: message.join, states: this.snapshot() },
      ],
    });
    this.mergeRemoteState(message.states);
  }

  private onUserMessage(message: Extract<Message, { t: "user" }>): void {
    const key = `${message.origin}/${message.id}`;
    if (this.seenUser.has(key)) return;
    this.remember(key);
    this.queue.enqueue(`user/${key}`, message);
    this.emit({ type: "user-message", origin: message.origin, payload: message.payload });
  }

  private remember(key: string): void {
    this.seenUser.add(key);
    if (this.seenUser.size > SEEN_USER_MESSAGES) {
      const oldest = this.seenUser.values().next().value;
      if (oldest !== undefined) this.seenUser.delete(oldest);
    }
  }

  // ---- state rules ----

  private aliveNode(a: Extract<Message, { t: "alive" }>): void {
    const isLocal = a.node === this.local.name;
    // A stale alive about us, in flight while we leave, must not bring us back.
    if (isLocal && this.leaving) return;
    let member = this.members.get(a.node);
    let isNew = false;
    let reclaims = false;
    if (!member) {
      member = {
        name: a.node,
        address: a.address,
        incarnation: a.incarnation,
        state: "dead",
        stateChangedAt: this.now,
        tags: a.tags,
      };
      this.members.set(a.node, member);
      this.insertIntoProbeOrder(a.node);
      isNew = true;
    } else if (member.address !== a.address && !isLocal) {
      // Another address claims this name: only a member that left, or has long been dead, may be reclaimed.
      const reclaimable =
        member.state === "left" ||
        (member.state === "dead" && this.now - member.stateChangedAt >= this.config.deadNodeReclaimTime);
      if (!reclaimable) return;
      reclaims = true;
    }
    if (!isLocal && !isNew && !reclaims && a.incarnation <= member.incarnation) return;
    if (isLocal && a.incarnation < member.incarnation) return;
    this.suspicions.delete(a.node);

    if (isLocal) {
      if (
        a.incarnation === member.incarnation &&
        a.address === member.address &&
        sameTags(a.tags, member.tags)
      )
        return;
      this.refute(a.incarnation);
      return;
    }

    this.queue.enqueue(a.node, a);
    const previous = member.state;
    const changed = member.address !== a.address || !sameTags(member.tags, a.tags);
    member.incarnation = a.incarnation;
    member.address = a.address;
    member.tags = a.tags;
    if (previous !== "alive" || isNew) this.setState(member, "alive");
    if (isNew || previous === "dead" || previous === "left")
      this.emit({ type: "member-join", member: snapshotMember(member) });
    else if (changed) this.emit({ type: "member-update", member: snapshotMember(member) });
  }

  private suspectNode(s: Extract<Message, { t: "suspect" }>): void {
    const member = this.members.get(s.node);
    if (!member || s.incarnation < member.incarnation) return;
    const suspicion = this.suspicions.get(s.node);
    if (suspicion) {
      if (suspicion.confirm(s.from)) this.queue.enqueue(s.node, s);
      return;
    }
    if (member.state !== "alive") return;
    if (member === this.local) {
      this.refute(s.incarnation);
      return;
    }
    this.queue.enqueue(s.node, s);
    member.incarnation = s.incarnation;
    this.setState(member, "suspect");
    const n = this.live;
    let k = this.config.suspicionMult - 2;
    if (n - 2 < k) k = 0;
    const min = suspicionTimeout(this.config.suspicionMult, n, this.config.probeInterval);
    const max = this.config.suspicionMaxTimeoutMult * min;
    this.suspicions.set(s.node, new Suspicion(this.now, k, min, max, s.from));
  }

  private tickSuspicions(): void {
    for (const [name, suspicion] of this.suspicions) {
      if (this.now < suspicion.deadline()) continue;
      this.suspicions.delete(name);
      const member = this.members.get(name);
      if (member?.state === "suspect") {
        this.deadNode({ t: "dead", node: name, incarnation: member.incarnation, from: this.local.name });
      }
    }
  }

  private deadNode(d: Extract<Message, { t: "dead" }>): void {
    const member = this.members.get(d.node);
    if (!member || d.incarnation < member.incarnation) return;
    const isLeave = d.from === d.node;
    if (member.state === "left" || (member.state === "dead" && !isLeave)) return;
    this.suspicions.delete(d.node);
    if (member === this.local && !this.leaving) {
      this.refute(d.incarnation);
      return;
    }
    this.queue.enqueue(d.node, d);
    member.incarnation = d.incarnation;
    this.setState(member, isLeave ? "left" : "dead");
    if (member !== this.local) {
      this.emit({ type: isLeave ? "member-leave" : "member-failed", member: snapshotMember(member) });
    }
  }

  private refute(accused: number): void {
    this.local.incarnation = Math.max(this.local.incarnation + 1, accused + 1);
    // Lifeguard: being suspected hints that we are slow; be more patient with others for a while.
    this.awareness.applyDelta(1);
    this.broadcastLocalAlive();
  }

  private broadcastLocalAlive(): void {
    const { name, address, incarnation, tags } = this.local;
    this.queue.enqueue(name, { t: "alive", node: name, address, incarnation, tags });
  }

  private reap(member: MemberRecord): void {
    this.members.delete(member.name);
    this.suspicions.delete(member.name);
    if (member.state === "alive" || member.state === "suspect") this.live--;
    this.emit({ type: "member-reap", member: snapshotMember(member) });
  }

  // ---- randomness ----

  private insertIntoProbeOrder(name: string): void {
    const at = Math.floor(this.random() * (this.probeOrder.length + 1));
    this.probeOrder.splice(at, 0, name);
    if (at < this.probeIndex) this.probeIndex++;
  }

  private shuffle<T>(items: T[]): void {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      const a = items[i] as T;
      items[i] = items[j] as T;
      items[j] = a;
    }
  }

  /** Up to `count` distinct random members other than ourselves that satisfy `accept`. */
  private randomMembers(count: number, accept: (m: MemberRecord) => boolean): MemberRecord[] {
    const chosen: MemberRecord[] = [];
    const pool = this.probeOrder;
    const n = pool.length;
    if (n === 0 || count <= 0) return chosen;
    const pick = (name: string | undefined): void => {
      const member = name === undefined ? undefined : this.members.get(name);
      if (member && member !== this.local && !chosen.includes(member) && accept(member)) chosen.push(member);
    };
    // Random draws are cheap in big clusters; a scan from a random start finishes small or sparse ones.
    for (let tries = 0; tries < count * 4 && chosen.length < count; tries++)
      pick(pool[Math.floor(this.random() * n)]);
    const start = Math.floor(this.random() * n);
    for (let i = 0; i < n && chosen.length < count; i++) pick(pool[(start + i) % n]);
    return chosen;
  }
}

function snapshotMember(m: MemberRecord): Member {
  return {
    name: m.name,
    address: m.address,
    incarnation: m.incarnation,
    state: m.state,
    stateChangedAt: m.stateChangedAt,
    tags: m.tags,
  };
}

function sameTags(a: Tags, b: Tags): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => a[key] === b[key]);
}
