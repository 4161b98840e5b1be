import { anonymousToken, GLOBAL_MANAGEMENT_POLICY, managementToken } from "@cairn/api";
import { ANONYMOUS_TOKEN_ACCESSOR, COMMAND_VERSION, type Command, type StateStore } from "@cairn/fsm";
import type { Logger } from "pino";

export interface AclDutiesOptions {
  store: StateStore;
  /** Proposes a command on this leader (never forwarded). */
  apply(command: Command): Promise<unknown>;
  log: Logger;
  now: () => number;
  /** ACLs on: create the built-ins (and the initial management token) at leadership. */
  aclEnabled: boolean;
  /** `acl.tokens.initial_management`. */
  initialManagement: string | undefined;
  /** How often expired tokens and deleted namespaces are looked for. */
  intervalMs: number;
  /** Fresh accessor IDs. */
  uuid: () => string;
}

const REAP_BATCH = 128;

/**
 * The leader's ACL work: at leadership, the built-in global-management policy and anonymous token and the
 * configured initial management token (as Consul's leader initialises ACLs); then periodically the reap
 * of expired tokens and the purge of namespaces marked for deletion.
 */
export class AclDuties {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(private readonly o: AclDutiesOptions) {}

  start(): void {
    if (this.o.aclEnabled) void this.run(() => this.initialize(), "ACL initialisation failed");
    this.timer = setInterval(() => void this.run(() => this.tick(), "ACL reap failed"), this.o.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async run(work: () => Promise<void>, failure: string): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await work();
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message }, failure);
    } finally {
      this.busy = false;
    }
  }

  private async initialize(): Promise<void> {
    const secret = this.o.initialManagement;
    const acl = this.o.store.view().acl();
    const ready =
      acl.token(ANONYMOUS_TOKEN_ACCESSOR) !== undefined &&
      acl.policy(GLOBAL_MANAGEMENT_POLICY.ID) !== undefined &&
      (!secret || acl.tokenBySecret(secret) !== undefined);
    if (ready) return;
    await this.o.apply({
      v: COMMAND_VERSION,
      type: "acl.init",
      policy: GLOBAL_MANAGEMENT_POLICY,
      anonymous: anonymousToken(),
      ...(secret
        ? { initialManagement: managementToken(this.o.uuid(), secret, "Initial Management Token") }
        : {}),
      now: this.o.now(),
    });
    this.o.log.info("ACL built-ins created");
  }

  /** One reap: expired tokens in batches, then each marked namespace. */
  async tick(): Promise<void> {
    const acl = this.o.store.view().acl();
    const expired = acl.expiredTokens(this.o.now(), REAP_BATCH);
    if (expired.length > 0) {
      await this.o.apply({ v: COMMAND_VERSION, type: "acl.token.delete", accessors: expired });
      this.o.log.debug({ count: expired.length }, "expired ACL tokens reaped");
    }
    for (const ns of acl.readNamespaces().value) {
      if (!ns.DeletedAt) continue;
      await this.o.apply({ v: COMMAND_VERSION, type: "namespace.purge", name: ns.Name, now: this.o.now() });
      this.o.log.info({ namespace: ns.Name }, "namespace purged");
    }
  }
}
