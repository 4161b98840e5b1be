import { describe, expect, it } from "vitest";
import type { AclTokenSpec, ApplyResult, AuthMethodSpec, BindingRuleSpec } from "../src/index.js";
import { StateStore } from "../src/index.js";
import { Harness } from "./helpers.js";

const method = (over: Partial<AuthMethodSpec> = {}): AuthMethodSpec => ({
  Name: "k8s",
  Type: "kubernetes",
  Description: "",
  DisplayName: "",
  MaxTokenTTL: 0,
  TokenLocality: "",
  Config: { Host: "https://127.0.0.1:6443", BoundAudiences: ["a", "b"], ClaimMappings: { x: "y" } },
  Namespace: "default",
  NamespaceRules: [],
  ...over,
});

const rule = (over: Partial<BindingRuleSpec> = {}): BindingRuleSpec => ({
  ID: "r1",
  Description: "",
  AuthMethod: "k8s",
  Selector: "",
  BindType: "service",
  BindName: "web",
  Namespace: "default",
  ...over,
});

const loginToken = (accessor: string, authMethod: string): AclTokenSpec => ({
  AccessorID: accessor,
  SecretID: `secret-${accessor}`,
  Description: "token created via login",
  Policies: [],
  Roles: [],
  ServiceIdentities: [{ ServiceName: "web" }],
  NodeIdentities: [],
  Local: true,
  AuthMethod: authMethod,
  ExpirationTime: "",
  Namespace: "default",
  Type: "",
  Rules: "",
});

const err = (r: ApplyResult) => (typeof r === "object" && "error" in r ? r.error : undefined);

describe("fsm auth methods and binding rules", () => {
  it("stores methods with their config, keeps CreateIndex on update and refuses a Type change", () => {
    const h = new Harness();
    expect(h.run("acl.auth-method.set", { method: method() })).toBe(true);
    expect(h.run("acl.auth-method.set", { method: method({ Description: "d" }) })).toBe(true);
    const m = h.store.view().authMethods().method("default", "k8s");
    expect(m).toMatchObject({ Description: "d", CreateIndex: 1, ModifyIndex: 2 });
    expect(m?.Config).toEqual(method().Config);
    expect(err(h.run("acl.auth-method.set", { method: method({ Type: "jwt" }) }))).toBe(
      "the Type field of an Auth Method is immutable",
    );
    expect(h.store.view().authMethods().method("default", "k8s")?.ModifyIndex).toBe(2);
  });

  it("binding rules need an existing method and keep their AuthMethod", () => {
    const h = new Harness();
    expect(err(h.run("acl.binding-rule.set", { op: "create", rule: rule() }))).toBe(
      'cannot find auth method with name "k8s"',
    );
    h.run("acl.auth-method.set", { method: method() });
    h.run("acl.auth-method.set", { method: method({ Name: "other" }) });
    expect(h.run("acl.binding-rule.set", { op: "create", rule: rule() })).toBe(true);
    expect(err(h.run("acl.binding-rule.set", { op: "create", rule: rule() }))).toMatch(/already in use/);
    expect(err(h.run("acl.binding-rule.set", { op: "update", rule: rule({ AuthMethod: "other" }) }))).toMatch(
      /immutable/,
    );
    expect(err(h.run("acl.binding-rule.set", { op: "update", rule: rule({ ID: "nope" }) }))).toMatch(
      /cannot find binding rule/,
    );
    expect(
      h.store
        .view()
        .authMethods()
        .readRules("default", "k8s")
        .value.map((r) => r.ID),
    ).toEqual(["r1"]);
  });

  it("deleting a method deletes its binding rules and the tokens it created, nothing else", () => {
    const h = new Harness();
    h.run("acl.auth-method.set", { method: method() });
    h.run("acl.auth-method.set", { method: method({ Name: "other" }) });
    h.run("acl.binding-rule.set", { op: "create", rule: rule() });
    h.run("acl.binding-rule.set", { op: "create", rule: rule({ ID: "r2", AuthMethod: "other" }) });
    h.run("acl.token.set", { op: "create", token: loginToken("t1", "k8s"), now: h.now });
    h.run("acl.token.set", { op: "create", token: loginToken("t2", "other"), now: h.now });
    // Placed in namespace "team" by a NamespaceRule of the default-namespace method.
    h.run("acl.token.set", {
      op: "create",
      token: { ...loginToken("t3", "k8s"), Namespace: "team" },
      now: h.now,
    });
    expect(h.run("acl.auth-method.delete", { ns: "default", name: "k8s" })).toBe(true);
    expect(h.run("acl.auth-method.delete", { ns: "default", name: "k8s" })).toBe(false);
    const view = h.store.view();
    expect(view.authMethods().method("default", "k8s")).toBeUndefined();
    expect(view.authMethods().rule("r1")).toBeUndefined();
    expect(view.authMethods().rule("r2")).toBeDefined();
    expect(view.acl().token("t1")).toBeUndefined();
    expect(view.acl().tokenBySecret("secret-t1")).toBeUndefined();
    expect(view.acl().token("t2")).toBeDefined();
    expect(view.acl().token("t3")).toBeUndefined();
  });

  it("purging a namespace removes its methods, their rules and tokens", () => {
    const h = new Harness();
    h.run("namespace.set", { op: "create", namespace: { Name: "team", Description: "" } });
    h.run("acl.auth-method.set", { method: method({ Namespace: "team" }) });
    h.run("acl.auth-method.set", { method: method() });
    h.run("acl.binding-rule.set", { op: "create", rule: rule({ Namespace: "team" }) });
    h.run("acl.binding-rule.set", { op: "create", rule: rule({ ID: "r2" }) });
    h.run("namespace.delete", { name: "team", now: h.now });
    h.run("namespace.purge", { name: "team", now: h.now });
    const reads = h.store.view().authMethods();
    expect(reads.method("team", "k8s")).toBeUndefined();
    expect(reads.rule("r1")).toBeUndefined();
    expect(reads.method("default", "k8s")).toBeDefined();
    expect(reads.rule("r2")).toBeDefined();
  });

  it("snapshots carry methods and rules", () => {
    const h = new Harness();
    h.run("acl.auth-method.set", {
      method: method({ NamespaceRules: [{ Selector: "", BindNamespace: "x" }] }),
    });
    h.run("acl.binding-rule.set", { op: "create", rule: rule() });
    const copy = new StateStore();
    copy.restoreSync(h.store.snapshot());
    const reads = copy.view().authMethods();
    expect(reads.method("default", "k8s")).toEqual(h.store.view().authMethods().method("default", "k8s"));
    expect(reads.rulesOf("default", "k8s")).toHaveLength(1);
    expect(reads.readMethods("*").index).toBe(1);
  });
});
