// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are HIL templates, not JavaScript ones
import { describe, expect, it } from "vitest";
import {
  compileTemplate,
  type PreparedQueryDefinition,
  parseHil,
  renderTemplate,
  type ServiceQuery,
  TemplateError,
} from "../../src/index.js";

const service = (over: Partial<ServiceQuery>): ServiceQuery => ({
  Service: "",
  Failover: { NearestN: 0, Datacenters: null },
  IgnoreCheckIDs: null,
  OnlyPassing: false,
  Near: "",
  Tags: null,
  NodeMeta: null,
  ServiceMeta: null,
  Connect: false,
  ...over,
});

const template = (
  name: string,
  svc: Partial<ServiceQuery>,
  opts: { Regexp?: string; RemoveEmptyTags?: boolean; Type?: string } = {},
): PreparedQueryDefinition => ({
  ID: "11111111-1111-1111-1111-111111111111",
  Name: name,
  Session: "",
  Token: "",
  Template: {
    Type: opts.Type ?? "name_prefix_match",
    Regexp: opts.Regexp ?? "",
    RemoveEmptyTags: opts.RemoveEmptyTags ?? false,
  },
  Service: service(svc),
  DNS: { TTL: "" },
});

const render = (q: PreparedQueryDefinition, name: string, segment = "") =>
  renderTemplate(compileTemplate(q), name, { segment }).Service;

describe("template interpolation", () => {
  it("name.full, name.prefix, name.suffix and agent.segment", () => {
    const q = template("geo-db", {
      Service: "${name.suffix}",
      Tags: ["${name.full}", "${name.prefix}", "x-${name.suffix}-y"],
      NodeMeta: { segment: "${agent.segment}" },
    });
    expect(render(q, "geo-db-customer", "alpha")).toMatchObject({
      Service: "-customer",
      Tags: ["geo-db-customer", "geo-db", "x--customer-y"],
      NodeMeta: { segment: "alpha" },
    });
  });

  it("interpolates every string inside Service, at any depth, but never map keys", () => {
    const q = template("", {
      Service: "${name.full}",
      Near: "${name.full}-near",
      IgnoreCheckIDs: ["${name.full}-check"],
      ServiceMeta: { "${name.full}": "${name.full}" },
      Failover: { NearestN: 2, Datacenters: ["${name.full}-dc"] },
    });
    expect(render(q, "web")).toEqual({
      ...service({}),
      Service: "web",
      Near: "web-near",
      IgnoreCheckIDs: ["web-check"],
      ServiceMeta: { "${name.full}": "web" },
      Failover: { NearestN: 2, Datacenters: ["web-dc"] },
    });
  });

  it("a catch-all template's prefix is empty and its suffix the whole name", () => {
    const q = template("", { Service: "${name.prefix}|${name.suffix}" });
    expect(render(q, "anything").Service).toBe("|anything");
  });

  it("$${ is a literal ${", () => {
    expect(render(template("", { Service: "$${name.full}" }), "web").Service).toBe("${name.full}");
  });

  it("RemoveEmptyTags drops tags that render empty; without it they stay", () => {
    const svc = { Service: "db", Tags: ["${match(1)}", "${match(2)}", "fixed"] };
    const re = "^db-([a-z]*)-?([a-z]*)$";
    expect(render(template("db-", svc, { Regexp: re, RemoveEmptyTags: true }), "db-primary").Tags).toEqual([
      "primary",
      "fixed",
    ]);
    expect(render(template("db-", svc, { Regexp: re }), "db-primary").Tags).toEqual(["primary", "", "fixed"]);
  });
});

describe("template regexp (RE2)", () => {
  const docs = template(
    "geo-db",
    { Service: "mysql-${match(1)}", Tags: ["${match(2)}"] },
    {
      Regexp: "^geo-db-(.*?)-([^\\-]+?)$",
    },
  );

  it("extracts submatches as in Consul's documented example", () => {
    expect(render(docs, "geo-db-customer-primary")).toMatchObject({
      Service: "mysql-customer",
      Tags: ["primary"],
    });
  });

  it("match(0) is the whole match", () => {
    expect(render(template("", { Service: "${match(0)}" }, { Regexp: "[0-9]+" }), "web-42-x").Service).toBe(
      "42",
    );
  });

  it("no match renders every match(N) empty", () => {
    expect(render(docs, "geo-db-nodash")).toMatchObject({ Service: "mysql-", Tags: [""] });
  });

  it("an invalid index (out of range, negative) renders empty", () => {
    const q = template("", { Service: "a${match(7)}b${match(-1)}c" }, { Regexp: "(x)" });
    expect(render(q, "x").Service).toBe("abc");
  });

  it("an unmatched optional group renders empty", () => {
    const q = template("", { Service: "${match(1)}|${match(2)}" }, { Regexp: "(a)|(b)" });
    expect(render(q, "b").Service).toBe("|b");
  });

  it("is unanchored unless the pattern anchors itself, as Go's FindStringSubmatch", () => {
    expect(
      render(template("", { Service: "${match(1)}" }, { Regexp: "db-([a-z]+)" }), "x-db-main-2").Service,
    ).toBe("main");
    expect(
      render(template("", { Service: "${match(1)}" }, { Regexp: "^db-([a-z]+)" }), "x-db-main-2").Service,
    ).toBe("");
  });

  it("RE2 syntax: no backreferences or lookaheads, which are refused at compile", () => {
    expect(() => compileTemplate(template("", { Service: "s" }, { Regexp: "(a)\\1" }))).toThrow(
      /^Bad Regexp: /,
    );
    expect(() => compileTemplate(template("", { Service: "s" }, { Regexp: "(?=x)" }))).toThrow(TemplateError);
    expect(() => compileTemplate(template("", { Service: "s" }, { Regexp: "(" }))).toThrow(
      "Bad Regexp: error parsing regexp: missing closing ): `(`",
    );
  });
});

describe("template compile errors", () => {
  it("only name_prefix_match", () => {
    expect(() => compileTemplate(template("", { Service: "s" }, { Type: "other" }))).toThrow(
      "Bad Template.Type 'other'",
    );
  });

  it("a malformed interpolation names the field", () => {
    expect(() => compileTemplate(template("", { Service: "ok", Tags: ["${name.full"] }))).toThrow(
      /^Bad format '\$\{name.full' in Service.Tags\[0\]: /,
    );
  });

  it("an unknown variable or function fails the test render", () => {
    expect(() => compileTemplate(template("", { Service: "${name.nope}" }))).toThrow(
      "Bad evaluation for '${name.nope}' in Service.Service: unknown variable accessed: name.nope",
    );
    expect(() => compileTemplate(template("", { Service: "${nope(1)}" }))).toThrow(
      /unknown function called: nope/,
    );
  });

  it("match needs one int", () => {
    expect(() => compileTemplate(template("", { Service: '${match("1")}' }))).toThrow(/Bad evaluation/);
  });

  it("an int where a string is wanted", () => {
    expect(() => compileTemplate(template("", { Service: "${1}" }))).toThrow(
      "Expected Service.Service field to be a string, got TypeInt",
    );
  });

  it("parses literal text and interpolations", () => {
    expect(parseHil('a${ match( 1 ) }b${"q\\"x"}')).toEqual([
      "a",
      { kind: "call", name: "match", args: [{ kind: "int", value: 1 }] },
      "b",
      { kind: "string", value: 'q"x' },
    ]);
  });
});
