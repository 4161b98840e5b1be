import { describe, expect, it } from "vitest";
import { aclResource, bodyFromForm, cellText, formFromRecord } from "../src/views/acl/resources.js";

const tokens = aclResource("tokens");
const policies = aclResource("policies");
const methods = aclResource("auth-methods");

describe("ACL resource forms", () => {
  it("round-trips a token through its form", () => {
    if (!tokens) throw new Error("no tokens resource");
    const record = {
      AccessorID: "a1",
      SecretID: "s1",
      Description: "<b>ops</b>",
      Policies: [
        { ID: "p1", Name: "read-web" },
        { ID: "p2", Name: "kv" },
      ],
      Roles: [],
      Local: true,
    };
    const form = formFromRecord(tokens, record);
    expect(form).toEqual({
      Description: "<b>ops</b>",
      Policies: "read-web, kv",
      Roles: "",
      ServiceIdentities: "",
      Local: true,
    });
    const result = bodyFromForm(tokens, { ...form, Roles: " admin ,, " }, record);
    expect(result).toEqual({
      ok: true,
      body: {
        AccessorID: "a1",
        Local: true,
        Description: "<b>ops</b>",
        Policies: [{ Name: "read-web" }, { Name: "kv" }],
        Roles: [{ Name: "admin" }],
      },
    });
  });

  it("builds a policy body with rules and datacenters, and omits empty text on create", () => {
    if (!policies) throw new Error("no policies resource");
    const rules = 'key_prefix "app/" {\n  policy = "read"\n}';
    expect(
      bodyFromForm(policies, { Name: "app", Description: "", Rules: rules, Datacenters: "dc1, dc2" }),
    ).toEqual({
      ok: true,
      body: { Name: "app", Rules: rules, Datacenters: ["dc1", "dc2"] },
    });
  });

  it("reports a JSON field that does not parse, and keeps an auth method's name and type on edit", () => {
    if (!methods) throw new Error("no auth-methods resource");
    const bad = bodyFromForm(methods, { Name: "m", Type: "jwt", Config: "{nope" });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/^Config: not valid JSON/);
    const existing = { Name: "m", Type: "jwt", Config: { JWTValidationPubKeys: ["k"] } };
    const form = formFromRecord(methods, existing);
    const edited = bodyFromForm(methods, { ...form, Name: "renamed", DisplayName: "M" }, existing);
    expect(edited.ok && edited.body).toMatchObject({
      Name: "m",
      Type: "jwt",
      DisplayName: "M",
      Config: { JWTValidationPubKeys: ["k"] },
    });
  });

  it("renders list cells as text", () => {
    if (!tokens) throw new Error("no tokens resource");
    expect(cellText(tokens, "Local", false)).toBe("global");
    expect(cellText(tokens, "Policies", [{ Name: "a" }, { ID: "id-only" }])).toBe("a, id-only");
    expect(cellText(tokens, "Description", undefined)).toBe("");
  });
});
