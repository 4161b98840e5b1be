// A request without a token before the leader has made the anonymous token (ACLs just turned on): it acts
// as an anonymous token with no policies, so the default policy decides, as Consul's servers synthesize it.
import { describe, expect, it } from "vitest";
import { startAclServer } from "./harness.js";

describe("the anonymous token before ACLs are set up", () => {
  it("is allowed what the default policy allows, instead of 403 ACL not found", async () => {
    const fresh = await startAclServer({ acl: "allow", initialize: false });
    try {
      expect((await fresh.call("GET", "/v1/kv/early")).status).toBe(404);
      expect((await fresh.call("PUT", "/v1/kv/early", undefined, "v")).status).toBe(200);
      // A secret nobody made is still unknown.
      const unknown = await fresh.call("GET", "/v1/kv/early", "00000000-0000-4000-8000-000000000009");
      expect([unknown.status, unknown.text]).toEqual([403, "ACL not found"]);
    } finally {
      await fresh.close();
    }
  });

  it("is denied under a deny default policy, as the real anonymous token would be", async () => {
    const fresh = await startAclServer({ acl: "deny", initialize: false });
    try {
      const denied = await fresh.call("GET", "/v1/kv/early");
      expect(denied.status).toBe(403);
      expect(denied.text).toMatch(/^Permission denied/);
      // Bootstrap still works, and the management token it makes does everything.
      const boot = await fresh.call<{ SecretID: string }>("PUT", "/v1/acl/bootstrap");
      expect(boot.status).toBe(200);
      expect((await fresh.call("PUT", "/v1/kv/early", boot.body.SecretID, "v")).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });
});
