import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AclRulesError, type LabelledRule, parseRules } from "../src/index.js";

function rulesOf(text: string, options?: Parameters<typeof parseRules>[1]) {
  return parseRules(text, options).rules;
}

function errorOf(text: string, options?: Parameters<typeof parseRules>[1]): AclRulesError {
  try {
    parseRules(text, options);
  } catch (err) {
    if (err instanceof AclRulesError) return err;
    throw err;
  }
  throw new Error(`expected an AclRulesError for ${text}`);
}

const LABELLED = ["agent", "event", "identity", "key", "node", "query", "service", "session"] as const;

describe("parseRules: labelled resources", () => {
  const cases = LABELLED.flatMap((resource) =>
    [false, true].flatMap((prefix) =>
      (resource === "key" ? ["read", "write", "list", "deny"] : ["read", "write", "deny"]).map((policy) => ({
        resource,
        prefix,
        policy,
      })),
    ),
  );
  it.each(cases)(
    "$resource prefix=$prefix policy=$policy in HCL and JSON",
    ({ resource, prefix, policy }) => {
      const key = prefix ? `${resource}_prefix` : resource;
      const expected: LabelledRule = {
        resource,
        name: "a/b",
        prefix,
        policy: policy as LabelledRule["policy"],
      };
      expect(rulesOf(`${key} "a/b" {\n  policy = "${policy}"\n}`).rules).toEqual([expected]);
      expect(rulesOf(JSON.stringify({ [key]: { "a/b": { policy } } })).rules).toEqual([expected]);
    },
  );

  it("reads policies case-insensitively, as Consul does", () => {
    expect(rulesOf(`key "a" { policy = "WRITE" }`).rules[0]?.policy).toBe("write");
    expect(rulesOf(`operator = "Read"`).singletons).toEqual({ operator: "read" });
  });

  it("keeps every label of a resource, including the empty one", () => {
    const rules = rulesOf(`
      key_prefix "" { policy = "read" }
      key_prefix "foo/" { policy = "write" }
      key "foo/bar" { policy = "deny" }
    `).rules;
    expect(rules).toEqual([
      { resource: "key", name: "", prefix: true, policy: "read" },
      { resource: "key", name: "foo/", prefix: true, policy: "write" },
      { resource: "key", name: "foo/bar", prefix: false, policy: "deny" },
    ]);
  });

  it("reads intentions on service and identity rules", () => {
    expect(rulesOf(`service "web" { policy = "read" intentions = "write" }`).rules).toEqual([
      { resource: "service", name: "web", prefix: false, policy: "read", intentions: "write" },
    ]);
    expect(rulesOf(`{"service_prefix": {"": {"policy": "write", "intentions": "deny"}}}`).rules).toEqual([
      { resource: "service", name: "", prefix: true, policy: "write", intentions: "deny" },
    ]);
    expect(rulesOf(`identity_prefix "" { policy = "read" intentions = "read" }`).rules[0]?.intentions).toBe(
      "read",
    );
  });

  it("accepts the JSON list form and repeated labels", () => {
    expect(rulesOf(`{"key": [{"a": {"policy": "read"}}, {"b": {"policy": "write"}}]}`).rules).toHaveLength(2);
    expect(rulesOf(`key "a" { policy = "read" }\nkey "a" { policy = "deny" }`).rules).toEqual([
      { resource: "key", name: "a", prefix: false, policy: "read" },
      { resource: "key", name: "a", prefix: false, policy: "deny" },
    ]);
  });

  it("treats empty text as a policy without rules", () => {
    expect(rulesOf("")).toEqual({ singletons: {}, rules: [], namespaces: [] });
    expect(rulesOf("  \n ")).toEqual({ singletons: {}, rules: [], namespaces: [] });
    expect(rulesOf("# only a comment")).toEqual({ singletons: {}, rules: [], namespaces: [] });
  });
});

describe("parseRules: singletons", () => {
  it.each(["acl", "keyring", "mesh", "operator", "peering"])("%s takes read, write or deny", (resource) => {
    for (const policy of ["read", "write", "deny"]) {
      expect(rulesOf(`${resource} = "${policy}"`).singletons).toEqual({ [resource]: policy });
      expect(rulesOf(`{"${resource}": "${policy}"}`).singletons).toEqual({ [resource]: policy });
    }
    expect(rulesOf(`${resource} = ""`).singletons).toEqual({});
  });
});

describe("parseRules: namespaces and partitions", () => {
  it("reads namespace blocks with their own policy and nested rules", () => {
    const rules = rulesOf(`
      namespace_prefix "" {
        policy = "read"
        service_prefix "" { policy = "read" }
      }
      namespace "foo" {
        acl = "write"
        key_prefix "" { policy = "write" }
      }
    `);
    expect(rules.namespaces).toEqual([
      {
        name: "",
        prefix: true,
        policy: "read",
        rules: {
          singletons: {},
          rules: [{ resource: "service", name: "", prefix: true, policy: "read" }],
          namespaces: [],
        },
      },
      {
        name: "foo",
        prefix: false,
        rules: {
          singletons: { acl: "write" },
          rules: [{ resource: "key", name: "", prefix: true, policy: "write" }],
          namespaces: [],
        },
      },
    ]);
  });

  it("applies rules of partition blocks covering default and warns about others", () => {
    const parsed = parseRules(`
      partition "default" { mesh = "write" node "n1" { policy = "write" } }
      partition_prefix "def" { operator = "read" }
      partition "other" { key_prefix "" { policy = "write" } }
    `);
    expect(parsed.rules.singletons).toEqual({ mesh: "write", operator: "read" });
    expect(parsed.rules.rules).toEqual([{ resource: "node", name: "n1", prefix: false, policy: "write" }]);
    expect(parsed.warnings).toEqual([
      'partition "other": Cairn has only the default partition; these rules are ignored',
    ]);
  });

  it("validates ignored partitions too", () => {
    expect(errorOf(`partition "other" { key "a" { policy = "nope" } }`).reason).toContain(
      'invalid policy "nope"',
    );
  });

  it("warns about sentinel code instead of failing", () => {
    const parsed = parseRules(`key "a" {\n policy = "write"\n sentinel { code = "main = rule { true }" }\n}`);
    expect(parsed.rules.rules).toHaveLength(1);
    expect(parsed.warnings).toEqual(['key "a": sentinel code is not supported and is ignored']);
  });
});

describe("parseRules: legacy syntax", () => {
  it("reads labelled rules as prefix rules", () => {
    const rules = rulesOf(
      `key "" { policy = "read" }\nservice "web" { policy = "write" intentions = "read" }\noperator = "read"`,
      { syntax: "legacy" },
    );
    expect(rules.rules).toEqual([
      { resource: "key", name: "", prefix: true, policy: "read" },
      { resource: "service", name: "web", prefix: true, policy: "write", intentions: "read" },
    ]);
    expect(rules.singletons).toEqual({ operator: "read" });
  });

  it("refuses resources the legacy syntax did not have", () => {
    expect(errorOf(`key_prefix "" { policy = "read" }`, { syntax: "legacy" }).reason).toBe(
      'unknown ACL resource "key_prefix" in legacy rules',
    );
  });
});

describe("parseRules: errors carry line and column", () => {
  const cases: { text: string; message: string }[] = [
    {
      text: `key_prefix "foo/" {\n  policy = "rwx"\n}`,
      message:
        'line 2, column 3: invalid policy "rwx" for key_prefix "foo/" (expected read, write, list or deny)',
    },
    {
      text: `\n\nservice "web" { policy = "list" }`,
      message: 'line 3, column 17: invalid policy "list" for service "web" (expected read, write or deny)',
    },
    {
      text: `node "n" {\n}`,
      message: 'line 1, column 6: missing policy for node "n" (expected read, write or deny)',
    },
    {
      text: `operator = "manage"`,
      message: 'line 1, column 1: invalid policy "manage" for operator (expected read, write or deny)',
    },
    {
      text: `acl = "list"`,
      message: 'line 1, column 1: invalid policy "list" for acl (expected read, write or deny)',
    },
    {
      text: `keyring = 3`,
      message: "line 1, column 1: keyring must be a string policy (read, write or deny)",
    },
    { text: `  bogus = "read"`, message: 'line 1, column 3: unknown ACL resource "bogus"' },
    {
      text: `key "a" {\n  policy = "read"\n  polcy = "write"\n}`,
      message: 'line 3, column 3: unknown field "polcy" in key "a"',
    },
    {
      text: `key "a" { policy = "read" intentions = "read" }`,
      message: 'line 1, column 27: unknown field "intentions" in key "a"',
    },
    {
      text: `service "a" {\n  policy = "read"\n  intentions = "rw"\n}`,
      message:
        'line 3, column 3: invalid policy "rw" for intentions of service "a" (expected read, write or deny)',
    },
    {
      text: `key = "read"`,
      message: 'line 1, column 1: key rules need a label and a block, as in key "name" { ... }',
    },
    {
      text: `key "a" = "read"`,
      message: `line 1, column 9: expected '{' after block "key" "a": only blocks take labels`,
    },
    {
      text: `key "a" { policy = }`,
      message: `line 1, column 20: expected a value after '=' for key "policy", found '}'`,
    },
    {
      text: `namespace "foo" {\n  operator = "read"\n}`,
      message: "line 2, column 3: operator rules are not allowed in a namespace other than default",
    },
    {
      text: `namespace "foo" {\n  node "n" { policy = "write" }\n}`,
      message: 'line 2, column 14: node "n" cannot grant write in a namespace other than default',
    },
    {
      text: `namespace_prefix "" {\n  query_prefix "" { policy = "read" }\n}`,
      message: "line 2, column 3: query_prefix rules are not allowed in a namespace other than default",
    },
    {
      text: `namespace "foo" {\n  mesh = "read"\n}`,
      message: "line 2, column 3: mesh rules are not allowed inside a namespace",
    },
    {
      text: `namespace "a" {\n  namespace "b" { policy = "read" }\n}`,
      message: "line 2, column 3: namespace rules cannot be nested in a namespace",
    },
    {
      text: `namespace "foo" { policy = "list" }`,
      message: 'line 1, column 19: invalid policy "list" for namespace "foo" (expected read, write or deny)',
    },
  ];
  it.each(cases)("$message", ({ text, message }) => {
    expect(errorOf(text).message).toBe(message);
  });

  it("refuses a setting given twice in one body, as Consul does", () => {
    expect(errorOf(`acl = "read"\nacl = "write"`).message).toBe(
      "line 2, column 1: acl is set twice; each setting can only be defined once",
    );
    expect(errorOf(`key "a" {\n  policy = "read"\n  policy = "write"\n}`).message).toBe(
      "line 3, column 3: policy is set twice; each setting can only be defined once",
    );
    expect(rulesOf(`key "a" { policy = "read" }\nkey "b" { policy = "read" }`).rules).toHaveLength(2);
  });

  it('allows operator-grade rules inside namespace "default"', () => {
    expect(
      rulesOf(`namespace "default" { operator = "read" node "n" { policy = "write" } }`).namespaces,
    ).toHaveLength(1);
  });

  it("applies the restrictions to the top level of a policy in another namespace", () => {
    expect(errorOf(`event_prefix "" { policy = "read" }`, { namespace: "team" }).message).toBe(
      "line 1, column 1: event_prefix rules are not allowed in a namespace other than default",
    );
    expect(errorOf(`namespace "x" { policy = "read" }`, { namespace: "team" }).message).toBe(
      "line 1, column 1: namespace rules are only allowed in the default namespace",
    );
    expect(rulesOf(`key_prefix "" { policy = "write" }`, { namespace: "team" }).rules).toHaveLength(1);
  });

  it("reports JSON-form errors without a position", () => {
    expect(errorOf(`{"key": {"a": "read"}}`).message).toBe('key "a" must be a block');
    const err = errorOf(`{"key": {"a": {"policy": "nope"}}}`);
    expect(err.message).toBe('invalid policy "nope" for key "a" (expected read, write, list or deny)');
    expect(err.line).toBeUndefined();
  });

  it("refuses absurdly nested input with the typed error", () => {
    expect(errorOf(`key ${'"a" '.repeat(50_000)}{}`).message).toBe("rules are nested too deeply to parse");
    expect(errorOf(`a = ${"[".repeat(10_000)}`).message).toMatch(/nesting is deeper than/);
  });

  it("reports syntax errors with the HCL parser's position", () => {
    const err = errorOf(`key "a" {\n  policy = "read"\n`);
    expect(err.line).toBe(3);
    expect(err.message).toMatch(/^line 3, column \d+: /);
  });

  it("only ever throws AclRulesError on random text", () => {
    const alphabet = fc.constantFrom(
      ...'key_prefix service node namespace policy intentions read write list deny acl operator = { } [ ] " \n # , : 0 1 a b'.split(
        " ",
      ),
      " ",
      '"',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.string({ maxLength: 40 }).map((t) => `{${t}`),
          fc.array(alphabet, { maxLength: 40 }).map((t) => t.join(" ")),
        ),
        (text) => {
          try {
            parseRules(text);
          } catch (err) {
            expect(err).toBeInstanceOf(AclRulesError);
            expect((err as Error).message).not.toContain("\n");
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("only ever throws AclRulesError on random JSON-shaped rules", () => {
    const policy = fc.oneof(
      fc.constantFrom("read", "write", "list", "deny", "", "x"),
      fc.integer(),
      fc.boolean(),
    );
    const body = fc.dictionary(fc.constantFrom("policy", "intentions", "other"), policy, { maxKeys: 3 });
    const doc = fc.dictionary(
      fc.oneof(
        fc.constantFrom("key", "key_prefix", "service", "operator", "namespace", "partition", "acl"),
        fc.string({ maxLength: 6 }),
      ),
      fc.oneof(policy, fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(body, policy), { maxKeys: 3 })),
      { maxKeys: 4 },
    );
    fc.assert(
      fc.property(doc, (value) => {
        try {
          parseRules(JSON.stringify(value));
        } catch (err) {
          expect(err).toBeInstanceOf(AclRulesError);
          expect((err as Error).message).not.toMatch(/[\n\r]/);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
