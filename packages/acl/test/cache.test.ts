import { describe, expect, it } from "vitest";
import {
  AclNotFoundError,
  type AclSecretLookups,
  type AclTokenRecord,
  AuthorizerCache,
  resolveSecret,
  TokenAuthorizer,
} from "../src/index.js";

function setup(tokens: Record<string, AclTokenRecord>) {
  let now = Date.parse("2026-01-01T00:00:00Z");
  let index = 10;
  let resolutions = 0;
  const lookups: AclSecretLookups = {
    policy: (id) =>
      id === "rw" ? { ID: "rw", Rules: `key_prefix "" { policy = "write" }`, ModifyIndex: 1 } : undefined,
    role: () => undefined,
    namespaceDefaults: () => undefined,
    tokenBySecret: (secret) => {
      resolutions++;
      return tokens[secret];
    },
  };
  const cache = new AuthorizerCache({ clock: () => now, maxEntries: 2 });
  const resolve = (secret: string) =>
    cache.authorizerFor(secret, index, () =>
      resolveSecret(secret, lookups, { now, datacenter: "dc1", defaultPolicy: "deny", rules: cache.rules }),
    );
  return {
    cache,
    lookups,
    resolve,
    resolutions: () => resolutions,
    advance: (ms: number) => {
      now += ms;
    },
    bump: () => {
      index++;
    },
    index: () => index,
  };
}

const rw: AclTokenRecord = { AccessorID: "a", SecretID: "s", Policies: [{ ID: "rw" }] };

describe("AuthorizerCache", () => {
  it("resolves a secret once while the ACL index is unchanged", () => {
    const t = setup({ s: rw });
    const first = t.resolve("s");
    expect(t.resolve("s")).toBe(first);
    expect(t.resolutions()).toBe(1);
    expect(first.authorize("default", "key", "x", "write")).toBe("allow");
  });

  it("resolves again after the ACL index moves", () => {
    const t = setup({ s: rw });
    const first = t.resolve("s");
    t.bump();
    const second = t.resolve("s");
    expect(second).not.toBe(first);
    expect(t.resolutions()).toBe(2);
  });

  it("refuses a cached token once it expires", () => {
    const t = setup({ s: { ...rw, ExpirationTime: "2026-01-01T00:01:00Z" } });
    t.resolve("s");
    t.advance(59_999);
    expect(() => t.resolve("s")).not.toThrow();
    t.advance(1);
    expect(() => t.resolve("s")).toThrow(AclNotFoundError);
    expect(t.cache.size).toBe(0);
  });

  it("does not cache failures", () => {
    const t = setup({});
    expect(() => t.resolve("missing")).toThrow(AclNotFoundError);
    expect(() => t.resolve("missing")).toThrow(AclNotFoundError);
    expect(t.resolutions()).toBe(2);
  });

  it("keeps at most maxEntries secrets, dropping the oldest", () => {
    const t = setup({ s: rw, s2: { ...rw, SecretID: "s2" }, s3: { ...rw, SecretID: "s3" } });
    t.resolve("s");
    t.resolve("s2");
    t.resolve("s3");
    expect(t.cache.size).toBe(2);
    t.resolve("s3");
    expect(t.resolutions()).toBe(3);
    t.resolve("s");
    expect(t.resolutions()).toBe(4);
  });
});

describe("TokenAuthorizer", () => {
  it("answers the HTTP seam's question by secret, with the anonymous token for an empty one", () => {
    const t = setup({ s: rw, anonymous: { AccessorID: "anon", SecretID: "anonymous" } });
    const authz = new TokenAuthorizer({
      cache: t.cache,
      lookups: t.lookups,
      aclIndex: t.index,
      datacenter: "dc1",
      defaultPolicy: "deny",
      anonymousSecret: "anonymous",
    });
    expect(authz.authorize("s", "default", "key", "k", "write")).toBe("allow");
    expect(authz.authorize("", "default", "key", "k", "read")).toBe("deny");
    expect(() => authz.authorize("unknown", "default", "key", "k", "read")).toThrow("ACL not found");
  });
});
