export type SessionBehavior = "release" | "delete";

/** A service-level check a session depends on (Consul 1.7+ `ServiceChecks`). */
export interface SessionServiceCheck {
  readonly ID: string;
  /** "" for the default namespace, as Consul's open-source edition writes it. */
  readonly Namespace: string;
}

export interface Session {
  readonly ID: string;
  readonly Name: string;
  readonly Node: string;
  /** Node-level check IDs on the session's node (Consul 1.7+). */
  readonly NodeChecks: readonly string[];
  /** Service-level checks on the session's node; null when none were named, as Consul writes it. */
  readonly ServiceChecks: readonly SessionServiceCheck[] | null;
  /** The pre-1.7 list, kept only when a client sent one; omitted when empty, as Consul does. */
  readonly Checks?: readonly string[];
  /** Nanoseconds (Consul's JSON shape: 15s is 1.5e10). */
  readonly LockDelay: number;
  readonly Behavior: SessionBehavior;
  /** As given, e.g. "30s"; empty for no TTL. */
  readonly TTL: string;
  readonly Namespace: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}
