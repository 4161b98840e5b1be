import { describe, expect, it } from "vitest";
import { GLOBAL_MANAGEMENT_RULES, type Resource } from "../src/index.js";
import { authorizer, compile } from "./helpers.js";

type Row = [resource: Resource, name: string, access: "read" | "list" | "write", expected: "allow" | "deny"];

function check(authz: ReturnType<typeof authorizer>, rows: Row[], ns = "default") {
  for (const [resource, name, access, expected] of rows) {
    expect(`${resource}:${name}:${access}=${authz.authorize(ns, resource, name, access)}`).toBe(
      `${resource}:${name}:${access}=${expected}`,
    );
  }
}

describe("matching within one policy", () => {
  const authz = authorizer([
    `
    key_prefix "" { policy = "read" }
    key_prefix "foo/" { policy = "write" }
    key_prefix "foo/bar/" { policy = "deny" }
    key "foo/bar/open" { policy = "write" }
    key "exact" { policy = "write" }
    key_prefix "exact" { policy = "deny" }
    `,
  ]);

  it("uses the longest prefix rule", () => {
    check(authz, [
      ["key", "other", "read", "allow"],
      ["key", "other", "write", "deny"],
      ["key", "foo/x", "write", "allow"],
      ["key", "foo/", "write", "allow"],
      ["key", "foo", "write", "deny"],
      ["key", "foo/bar/x", "read", "deny"],
      ["key", "foo/bar/", "read", "deny"],
    ]);
  });

  it("prefers an exact rule for the whole name over any prefix rule", () => {
    check(authz, [
      ["key", "foo/bar/open", "write", "allow"],
      ["key", "foo/bar/open2", "read", "deny"],
      ["key", "exact", "write", "allow"],
      ["key", "exactly", "read", "deny"],
    ]);
  });

  it("does not let an exact rule match longer names", () => {
    const a = authorizer([`key "a/b" { policy = "write" }`]);
    check(a, [
      ["key", "a/b", "write", "allow"],
      ["key", "a/b/c", "read", "deny"],
      ["key", "a/", "read", "deny"],
    ]);
  });

  it("splits radix edges correctly for labels sharing prefixes", () => {
    const a = authorizer([
      `key_prefix "team" { policy = "read" }
       key_prefix "teams/" { policy = "write" }
       key_prefix "tea" { policy = "deny" }
       key "te" { policy = "write" }`,
    ]);
    check(a, [
      ["key", "te", "write", "allow"],
      ["key", "tea", "read", "deny"],
      ["key", "teapot", "read", "deny"],
      ["key", "team", "read", "allow"],
      ["key", "teamx", "write", "deny"],
      ["key", "teams/a", "write", "allow"],
      ["key", "t", "read", "deny"],
    ]);
  });

  it.each(["agent", "event", "node", "query", "service", "session"] as const)(
    "%s rules match like key rules",
    (resource) => {
      const a = authorizer([
        `${resource}_prefix "" { policy = "read" }
         ${resource}_prefix "web" { policy = "write" }
         ${resource} "web-admin" { policy = "deny" }`,
      ]);
      check(a, [
        [resource, "db", "read", "allow"],
        [resource, "db", "write", "deny"],
        [resource, "web-1", "write", "allow"],
        [resource, "web-admin", "read", "deny"],
      ]);
    },
  );
});

describe("key list access", () => {
  it("list grants list and read; read does not grant list; write grants all", () => {
    const a = authorizer([
      `key_prefix "" { policy = "deny" }
       key_prefix "bar" { policy = "list" }
       key_prefix "baz" { policy = "read" }
       key_prefix "qux" { policy = "write" }`,
    ]);
    check(a, [
      ["key", "bar/1", "list", "allow"],
      ["key", "bar/1", "read", "allow"],
      ["key", "bar/1", "write", "deny"],
      ["key", "baz/1", "list", "deny"],
      ["key", "baz/1", "read", "allow"],
      ["key", "qux/1", "list", "allow"],
      ["key", "other", "list", "deny"],
    ]);
  });

  it("keyWritePrefix needs write on the prefix and on every rule under it", () => {
    const a = authorizer([
      `key_prefix "" { policy = "write" }
       key "app/secret" { policy = "read" }
       key_prefix "ro/" { policy = "read" }
       key_prefix "ro/rw/" { policy = "write" }`,
    ]);
    expect(a.keyWritePrefix("default", "app/")).toBe("deny");
    expect(a.keyWritePrefix("default", "ap")).toBe("deny");
    expect(a.keyWritePrefix("default", "other/")).toBe("allow");
    expect(a.keyWritePrefix("default", "ro/rw/")).toBe("allow");
    expect(a.keyWritePrefix("default", "ro/")).toBe("deny");
    expect(a.keyWritePrefix("default", "")).toBe("deny");
    expect(authorizer([], "allow").keyWritePrefix("default", "x")).toBe("allow");
    expect(authorizer([`key "x/y" { policy = "write" }`], "deny").keyWritePrefix("default", "x/")).toBe(
      "deny",
    );
  });
});

describe("merging several policies (Consul's PolicyMerger)", () => {
  it("deny wins for the same resource and label", () => {
    const a = authorizer([`key_prefix "a/" { policy = "write" }`, `key_prefix "a/" { policy = "deny" }`]);
    check(a, [["key", "a/x", "read", "deny"]]);
    const b = authorizer([`operator = "deny"`, `operator = "write"`]);
    check(b, [["operator", "", "read", "deny"]]);
  });

  it("otherwise the most permissive wins: write over list over read", () => {
    check(authorizer([`key_prefix "a/" { policy = "read" }`, `key_prefix "a/" { policy = "write" }`]), [
      ["key", "a/x", "write", "allow"],
    ]);
    check(authorizer([`key_prefix "a/" { policy = "list" }`, `key_prefix "a/" { policy = "read" }`]), [
      ["key", "a/x", "list", "allow"],
      ["key", "a/x", "write", "deny"],
    ]);
  });

  it("merges exact and prefix rules separately, and longer prefixes still win", () => {
    const a = authorizer([
      `key_prefix "a/" { policy = "deny" }`,
      `key_prefix "a/b/" { policy = "write" }`,
      `key "a/c" { policy = "read" }`,
    ]);
    check(a, [
      ["key", "a/x", "read", "deny"],
      ["key", "a/b/x", "write", "allow"],
      ["key", "a/c", "read", "allow"],
    ]);
  });

  it("merges policy and intentions of service rules separately", () => {
    const a = authorizer([
      `service "web" { policy = "write" }`,
      `service "web" { policy = "read" intentions = "write" }`,
    ]);
    check(a, [
      ["service", "web", "write", "allow"],
      ["intentions", "web", "write", "allow"],
    ]);
  });

  it("repeated labels in one policy merge the same way", () => {
    check(authorizer([`key "a" { policy = "write" }\nkey "a" { policy = "deny" }`]), [
      ["key", "a", "read", "deny"],
    ]);
  });
});

describe("intentions", () => {
  it("derive from service rules: read or write grants intentions read, deny denies", () => {
    const a = authorizer(
      [
        `service "web" { policy = "write" }
         service_prefix "db" { policy = "read" }
         service "admin" { policy = "deny" }
         service "api" { policy = "read" intentions = "write" }
         service "ro" { policy = "write" intentions = "deny" }`,
      ],
      "allow",
    );
    check(a, [
      ["intentions", "web", "read", "allow"],
      ["intentions", "web", "write", "deny"],
      ["intentions", "db-1", "read", "allow"],
      ["intentions", "db-1", "write", "deny"],
      ["intentions", "admin", "read", "deny"],
      ["intentions", "api", "write", "allow"],
      ["intentions", "ro", "read", "deny"],
      ["service", "ro", "write", "allow"],
      ["intentions", "unlisted", "write", "allow"],
    ]);
  });
});

describe("singletons", () => {
  it("operator, keyring and acl rules ignore the name", () => {
    check(authorizer([`operator = "read"\nkeyring = "write"\nacl = "read"`]), [
      ["operator", "", "read", "allow"],
      ["operator", "anything", "write", "deny"],
      ["keyring", "", "write", "allow"],
      ["acl", "", "read", "allow"],
      ["acl", "", "write", "deny"],
    ]);
  });

  it("mesh and peering fall back to the same policy's operator rule", () => {
    check(authorizer([`operator = "write"\nmesh = "read"`]), [
      ["mesh", "", "read", "allow"],
      ["mesh", "", "write", "deny"],
      ["peering", "", "write", "allow"],
    ]);
  });
});

describe("default policy", () => {
  it("decides what no rule covers", () => {
    check(authorizer([`key "a" { policy = "read" }`], "allow"), [
      ["key", "b", "write", "allow"],
      ["key", "a", "write", "deny"],
      ["service", "x", "write", "allow"],
    ]);
    check(authorizer([`key "a" { policy = "read" }`], "deny"), [
      ["key", "b", "read", "deny"],
      ["key", "a", "read", "allow"],
    ]);
  });

  it("never grants ACL management, even when allow (Consul's static authorizer)", () => {
    const a = authorizer([], "allow");
    check(a, [
      ["acl", "", "read", "deny"],
      ["acl", "", "write", "deny"],
    ]);
    expect(a.isManagement()).toBe(false);
  });
});

describe("global-management", () => {
  const a = authorizer([GLOBAL_MANAGEMENT_RULES], "deny");

  it("is management and may write everything, in every namespace", () => {
    expect(a.isManagement()).toBe(true);
    for (const ns of ["default", "team"]) {
      check(
        a,
        [
          ["acl", "", "write", "allow"],
          ["key", "any/key", "write", "allow"],
          ["key", "any/", "list", "allow"],
          ["service", "web", "write", "allow"],
          ["intentions", "web", "write", "allow"],
          ["session", "node1", "write", "allow"],
          ["node", "node1", "write", "allow"],
          ["operator", "", "write", "allow"],
          ["keyring", "", "write", "allow"],
          ["mesh", "", "write", "allow"],
          ["peering", "", "write", "allow"],
          ["agent", "n", "write", "allow"],
          ["event", "e", "write", "allow"],
          ["query", "q", "write", "allow"],
          ["namespace", "team", "write", "allow"],
        ],
        ns,
      );
      expect(a.keyWritePrefix(ns, "")).toBe("allow");
    }
  });
});

describe("namespaces", () => {
  const a = authorizer([
    `key_prefix "" { policy = "write" }
     node_prefix "" { policy = "read" }
     operator = "read"
     namespace "team" {
       policy = "read"
       key_prefix "" { policy = "read" }
       key_prefix "secret/" { policy = "deny" }
     }
     namespace_prefix "te" {
       key_prefix "shared/" { policy = "write" }
       service_prefix "" { policy = "write" }
       node_prefix "db" { policy = "read" }
     }
     namespace_prefix "" {
       key_prefix "secret/" { policy = "write" }
     }`,
  ]);

  it("top-level rules of a default-namespace policy cover the default namespace only", () => {
    check(a, [["key", "x", "write", "allow"]], "default");
    check(a, [["key", "x", "write", "deny"]], "other");
  });

  it("an exact namespace block is asked first, then prefix blocks, longest first", () => {
    check(
      a,
      [
        ["key", "x", "read", "allow"],
        ["key", "x", "write", "deny"],
        ["key", "secret/k", "read", "deny"],
        ["service", "web", "write", "allow"],
      ],
      "team",
    );
    check(
      a,
      [
        ["key", "shared/k", "write", "allow"],
        ["key", "x", "read", "deny"],
        ["key", "secret/k", "write", "allow"],
      ],
      "test",
    );
    check(a, [["key", "secret/k", "write", "allow"]], "zzz");
  });

  it("partition-level resources are decided by the default namespace's rules", () => {
    check(
      a,
      [
        ["operator", "", "read", "allow"],
        ["operator", "", "write", "deny"],
        ["namespace", "team", "read", "allow"],
        ["namespace", "team", "write", "deny"],
        ["namespace", "other", "read", "deny"],
      ],
      "team",
    );
  });

  it("node reads fall back to the default namespace; node writes are decided there", () => {
    check(
      a,
      [
        ["node", "db-1", "read", "allow"],
        ["node", "web-1", "read", "allow"],
        ["node", "web-1", "write", "deny"],
      ],
      "test",
    );
  });

  it("top-level rules of a policy in another namespace cover that namespace", () => {
    const b = authorizer([{ namespace: "team", text: `key_prefix "" { policy = "write" }` }]);
    check(b, [["key", "k", "write", "allow"]], "team");
    check(b, [["key", "k", "read", "deny"]], "default");
  });

  it("keyWritePrefix follows the namespace", () => {
    expect(a.keyWritePrefix("team", "")).toBe("deny");
    expect(a.keyWritePrefix("test", "shared/")).toBe("allow");
  });

  it("bounds the per-namespace memo without changing answers", () => {
    const rules = compile([`namespace_prefix "n" { key_prefix "" { policy = "write" } }`]);
    for (let i = 0; i < 3000; i++) expect(rules.decide(`n${i}`, "key", "k", "write")).toBe("allow");
  });
});

describe("namespace defaults (spec 1's default-access rule)", () => {
  it("direct read + default write = read", () => {
    const a = authorizer([`key_prefix "app/" { policy = "read" }`], "deny", [
      `key_prefix "" { policy = "write" }`,
    ]);
    check(a, [
      ["key", "app/x", "read", "allow"],
      ["key", "app/x", "write", "deny"],
    ]);
  });

  it("defaults apply only where no direct rule covers the resource and segment", () => {
    const a = authorizer([`key_prefix "app/" { policy = "read" }`], "deny", [
      `key_prefix "" { policy = "write" }`,
    ]);
    check(a, [
      ["key", "other", "write", "allow"],
      ["service", "web", "read", "deny"],
    ]);
  });

  it("a direct deny is not overridden by a default grant", () => {
    const a = authorizer([`service "web" { policy = "deny" }`], "allow", [
      `service_prefix "" { policy = "write" }`,
    ]);
    check(a, [
      ["service", "web", "read", "deny"],
      ["service", "api", "write", "allow"],
    ]);
  });

  it("when neither covers the resource the agent's default policy decides", () => {
    check(authorizer([`key "a" { policy = "read" }`], "allow", [`service "web" { policy = "read" }`]), [
      ["session", "n", "write", "allow"],
    ]);
    check(authorizer([`key "a" { policy = "read" }`], "deny", [`service "web" { policy = "read" }`]), [
      ["session", "n", "read", "deny"],
    ]);
  });
});

describe("questions about every or any name (Consul's allAllowed / anyAllowed)", () => {
  it("the wildcard intention: read needs any destination, write needs all of them", () => {
    const some = authorizer([`service "web" { policy = "read" intentions = "write" }`]);
    expect(some.authorize("default", "intentions", "*", "read")).toBe("allow");
    expect(some.authorize("default", "intentions", "*", "write")).toBe("deny");
    const all = authorizer([`service_prefix "" { policy = "write" intentions = "write" }`]);
    expect(all.authorize("default", "intentions", "*", "write")).toBe("allow");
    const allButOne = authorizer([
      `service_prefix "" { policy = "write" intentions = "write" }\nservice "db" { policy = "read" }`,
    ]);
    expect(allButOne.authorize("default", "intentions", "*", "write")).toBe("deny");
    expect(authorizer([]).authorize("default", "intentions", "*", "read")).toBe("deny");
  });

  it("authorizeAll (ServiceReadAll, NodeReadAll)", () => {
    expect(authorizer([`node_prefix "" { policy = "read" }`]).authorizeAll("default", "node", "read")).toBe(
      "allow",
    );
    expect(
      authorizer([`node_prefix "" { policy = "read" }\nnode "secret" { policy = "deny" }`]).authorizeAll(
        "default",
        "node",
        "read",
      ),
    ).toBe("deny");
    expect(authorizer([`node "a" { policy = "read" }`]).authorizeAll("default", "node", "read")).toBe("deny");
    expect(
      authorizer([`node "a" { policy = "read" }`], "allow").authorizeAll("default", "node", "read"),
    ).toBe("allow");
    expect(
      authorizer([`service_prefix "" { policy = "deny" }`], "allow").authorizeAll(
        "default",
        "service",
        "read",
      ),
    ).toBe("deny");
  });

  it("authorizeAny (ServiceWriteAny)", () => {
    expect(
      authorizer([`service "web" { policy = "write" }`]).authorizeAny("default", "service", "write"),
    ).toBe("allow");
    expect(
      authorizer([`service_prefix "" { policy = "read" }`]).authorizeAny("default", "service", "write"),
    ).toBe("deny");
    expect(authorizer([]).authorizeAny("default", "service", "write")).toBe("deny");
    expect(authorizer([], "allow").authorizeAny("default", "service", "write")).toBe("allow");
    expect(
      authorizer([`namespace "team" { service "web" { policy = "write" } }`]).authorizeAny(
        "team",
        "service",
        "write",
      ),
    ).toBe("allow");
  });
});

describe("namespace visibility (spec 1's namespace:*:read)", () => {
  it("any access inside the namespace, or namespace read, shows it", () => {
    const a = authorizer([
      `namespace "team" { key_prefix "app/" { policy = "read" } }
       namespace "ops" { policy = "read" }
       namespace "locked" { key_prefix "" { policy = "deny" } }`,
    ]);
    expect(a.mayReadNamespace("team")).toBe(true);
    expect(a.mayReadNamespace("ops")).toBe(true);
    expect(a.mayReadNamespace("locked")).toBe(false);
    expect(a.mayReadNamespace("other")).toBe(false);
    expect(authorizer([], "allow").mayReadNamespace("other")).toBe(true);
    expect(authorizer([`key_prefix "" { policy = "read" }`]).mayReadNamespace("default")).toBe(true);
  });

  it("treats an empty namespace as default", () => {
    const a = authorizer([`key_prefix "" { policy = "write" }`]);
    expect(a.authorize("", "key", "k", "write")).toBe("allow");
    expect(a.keyWritePrefix("", "k")).toBe("allow");
  });
});
