// storeAclLookups: a token's records from the state store, as a server hands them to a client agent that
// resolves tokens itself; the resolution from those records alone decides as the server's enforcer.
import { recordedLookups, recordTokenResolution, resolveSecret } from "@cairn/acl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeAclLookups } from "../../src/index.js";
import { type AclServer, ROOT, startAclServer } from "./harness.js";

let s: AclServer;
beforeAll(async () => {
  s = await startAclServer();
});
afterAll(async () => {
  await s.close();
});

const ctx = () => ({ now: Date.now(), datacenter: "dc1", defaultPolicy: "deny" as const });

describe("storeAclLookups", () => {
  it("records a token's policies so that they resolve elsewhere to the same decisions", async () => {
    const secret = await s.tokenWith(
      `key_prefix "app/" { policy = "write" } service "web" { policy = "read" }`,
    );
    const { records } = recordTokenResolution(secret, storeAclLookups(s.backend.store), ctx());
    const copy = resolveSecret(secret, recordedLookups(structuredClone(records)), ctx()).authorizer;
    expect(copy.authorize("default", "key", "app/x", "write")).toBe("allow");
    expect(copy.authorize("default", "service", "web", "read")).toBe("allow");
    expect(copy.authorize("default", "service", "web", "write")).toBe("deny");
    expect(copy.authorize("default", "key", "other", "read")).toBe("deny");
  });

  it("carries an ID-based token's own rules as an embedded policy", async () => {
    const created = await s.call<{ ID: string }>("PUT", "/v1/acl/create", ROOT, {
      Name: "legacy",
      Type: "client",
      Rules: 'key "legacy/" { policy = "write" }',
    });
    const id = created.body.ID;
    const { records } = recordTokenResolution(id, storeAclLookups(s.backend.store), ctx());
    expect(records.policies).toHaveLength(1);
    const copy = resolveSecret(id, recordedLookups(structuredClone(records)), ctx()).authorizer;
    expect(copy.authorize("default", "key", "legacy/deep", "write")).toBe("allow");
    expect(copy.authorize("default", "key", "elsewhere", "write")).toBe("deny");
  });
});
