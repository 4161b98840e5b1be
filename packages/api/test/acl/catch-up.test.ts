// AclEnforcer.prepare: a server that does not hold a request's token yet catches up with the leader before
// resolving it, unless the request is ?stale; a token it holds costs nothing.
import { COMMAND_VERSION } from "@cairn/fsm";
import { describe, expect, it } from "vitest";
import { AclEnforcer } from "../../src/acl/enforcer.js";
import { HttpError } from "../../src/http/errors.js";
import { LocalBackend } from "../../src/local-backend.js";
import { anonymousToken, GLOBAL_MANAGEMENT_POLICY, managementToken } from "../../src/routes/acl.js";

const ROOT = "11111111-2222-3333-4444-555555555555";
const LATE = "99999999-8888-7777-6666-555555555555";

/** A server whose state lacks the LATE token until its catch-up applies it (the entry it lagged by). */
async function lagging(catchUp: (apply: () => Promise<void>) => Promise<void>) {
  const backend = new LocalBackend();
  const now = Date.now();
  await backend.apply({
    v: COMMAND_VERSION,
    type: "acl.init",
    policy: GLOBAL_MANAGEMENT_POLICY,
    anonymous: anonymousToken(),
    initialManagement: managementToken("00000000-0000-0000-0000-00000000000a", ROOT, "root"),
    now,
  });
  const applyLate = async () => {
    await backend.apply({
      v: COMMAND_VERSION,
      type: "acl.token.set",
      op: "create",
      token: managementToken("00000000-0000-0000-0000-00000000000b", LATE, "made through the leader"),
      now,
    });
  };
  let catchUps = 0;
  const acl = new AclEnforcer({
    store: backend.store,
    datacenter: "dc1",
    defaultPolicy: "deny",
    catchUp: () => {
      catchUps++;
      return catchUp(applyLate);
    },
  });
  return { acl, catchUps: () => catchUps };
}

const URL = "http://127.0.0.1:8500/v1/kv/app/config";

describe("AclEnforcer.prepare", () => {
  it("catches up once for a token this server does not hold, which then resolves", async () => {
    const s = await lagging((apply) => apply());
    expect(() => s.acl.forToken(LATE)).toThrow(HttpError);
    await s.acl.prepare(LATE, URL);
    expect(s.catchUps()).toBe(1);
    expect(s.acl.authorize(LATE, "default", "key", "app/config", "write")).toBe("allow");
    // Held now: nothing to wait for.
    expect(s.acl.prepare(LATE, URL)).toBeUndefined();
    expect(s.catchUps()).toBe(1);
  });

  it("costs nothing for a token it holds, or for a request without one (the anonymous token)", async () => {
    const s = await lagging((apply) => apply());
    expect(s.acl.prepare(ROOT, URL)).toBeUndefined();
    expect(s.acl.prepare("", URL)).toBeUndefined();
    expect(s.catchUps()).toBe(0);
  });

  it("resolves a ?stale request on what this server holds, as Consul's stale reads do", async () => {
    const s = await lagging((apply) => apply());
    for (const url of [`${URL}?stale`, `${URL}?recurse&stale=`, `${URL}?stale&index=3`])
      expect(s.acl.prepare(LATE, url)).toBeUndefined();
    expect(s.catchUps()).toBe(0);
    expect(() => s.acl.forToken(LATE)).toThrow("ACL not found");
    // A parameter that only contains the word is not ?stale.
    await s.acl.prepare(LATE, `${URL}?stalemate=1`);
    expect(s.catchUps()).toBe(1);
  });

  it("answers from its own state when there is no leader to catch up with", async () => {
    const s = await lagging(() => Promise.reject(new Error("No cluster leader")));
    await expect(s.acl.prepare(LATE, URL)).resolves.toBeUndefined();
    expect(() => s.acl.forToken(LATE)).toThrow("ACL not found");
  });

  it("is a no-op without a catch-up (a single server, or a client agent's own state)", async () => {
    const backend = new LocalBackend();
    const acl = new AclEnforcer({ store: backend.store, datacenter: "dc1", defaultPolicy: "deny" });
    expect(acl.prepare(LATE, URL)).toBeUndefined();
  });
});
