/**
 * What `GET /v1/acl/replication` reports (spec 1, plus the fields newer Consul adds). One owner: the
 * secondary leader's replication cycle writes it; the endpoint reads it.
 */
export interface ReplicationStatusJson {
  Enabled: boolean;
  Running: boolean;
  SourceDatacenter: string;
  /** `policies` without token replication, `tokens` with it; "" when not enabled. */
  ReplicationType: string;
  ReplicatedIndex: number;
  ReplicatedRoleIndex: number;
  ReplicatedTokenIndex: number;
  LastSuccess: string;
  LastError: string;
  LastErrorMessage: string;
}

export const ZERO_TIME = "0001-01-01T00:00:00Z";

/** Consul's time format: RFC 3339 in UTC, without milliseconds when there are none. */
const stamp = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

export class ReplicationStatus {
  running = false;
  replicatedIndex = 0;
  replicatedRoleIndex = 0;
  replicatedTokenIndex = 0;
  lastSuccess = 0;
  lastError = 0;
  lastErrorMessage = "";

  constructor(
    /** Replication runs at all: this datacenter is a secondary with ACLs on. */
    readonly enabled: boolean,
    readonly sourceDatacenter: string,
    readonly tokens: boolean,
  ) {}

  succeeded(at: number): void {
    this.lastSuccess = at;
  }

  failed(at: number, message: string): void {
    this.lastError = at;
    this.lastErrorMessage = message;
  }

  json(): ReplicationStatusJson {
    return {
      Enabled: this.enabled,
      Running: this.enabled && this.running,
      SourceDatacenter: this.sourceDatacenter,
      ReplicationType: this.enabled ? (this.tokens ? "tokens" : "policies") : "",
      ReplicatedIndex: this.replicatedIndex,
      ReplicatedRoleIndex: this.replicatedRoleIndex,
      ReplicatedTokenIndex: this.replicatedTokenIndex,
      LastSuccess: this.lastSuccess === 0 ? ZERO_TIME : stamp(this.lastSuccess),
      LastError: this.lastError === 0 ? ZERO_TIME : stamp(this.lastError),
      LastErrorMessage: this.lastErrorMessage,
    };
  }
}
