import type {
  ConfChange,
  ConfState,
  Message,
  NodeId,
  ProposeResult,
  RaftConfig,
  RaftStatus,
  Ready,
  Rejected,
  RestoreState,
  SnapshotMeta,
} from "./types.js";

export class RaftCore {
  constructor(config: RaftConfig, restored: RestoreState, bootstrap?: ConfState) {
    void config;
    void restored;
    void bootstrap;
  }
  tick(): void {
    throw new Error("not implemented");
  }
  step(m: Message): void {
    void m;
    throw new Error("not implemented");
  }
  propose(data: Uint8Array): ProposeResult {
    void data;
    throw new Error("not implemented");
  }
  proposeConfChange(c: ConfChange): ProposeResult {
    void c;
    throw new Error("not implemented");
  }
  readIndex(ctx: string, opts?: { lease?: boolean }): void {
    void ctx;
    void opts;
    throw new Error("not implemented");
  }
  transferLeadership(to: NodeId): Rejected | null {
    void to;
    throw new Error("not implemented");
  }
  compact(index: number): SnapshotMeta {
    void index;
    throw new Error("not implemented");
  }
  reportSnapshot(to: NodeId, ok: boolean): void {
    void to;
    void ok;
    throw new Error("not implemented");
  }
  reportUnreachable(to: NodeId): void {
    void to;
    throw new Error("not implemented");
  }
  hasReady(): boolean {
    throw new Error("not implemented");
  }
  ready(): Ready {
    throw new Error("not implemented");
  }
  advance(r: Ready): void {
    void r;
    throw new Error("not implemented");
  }
  status(): RaftStatus {
    throw new Error("not implemented");
  }
}
