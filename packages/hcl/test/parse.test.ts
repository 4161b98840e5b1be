// biome-ignore-all lint/suspicious/noTemplateCurlyInString: HCL interpolations written literally are the subject under test.
import { describe, expect, it } from "vitest";
import {
  type HclObject,
  HclParseError,
  parseHcl,
  parseHclSyntax,
  parseHclWithPositions,
} from "../src/index.js";

const cases: ReadonlyArray<readonly [string, string, HclObject]> = [
  ["empty input", "", {}],
  ["only comments", "# a\n// b\n/* c\n d */", {}],
  ["string", 'a = "x"', { a: "x" }],
  ["quoted key", '"a b" = 1', { "a b": 1 }],
  ["identifier with dots and dashes", "a.b-c_d = 1", { "a.b-c_d": 1 }],
  ["several items on one line", "a = 1 b = 2", { a: 1, b: 2 }],
  ["items separated by commas", "a = 1, b = 2,", { a: 1, b: 2 }],
  ["bools", "a = true\nb = false", { a: true, b: false }],
  ["int", "a = 42", { a: 42 }],
  ["negative int", "a = -7", { a: -7 }],
  ["float", "a = 1.5", { a: 1.5 }],
  ["negative float", "a = -0.25", { a: -0.25 }],
  ["float with exponent", "a = 1e3\nb = 2.5E-2", { a: 1000, b: 0.025 }],
  ["leading dot float", "a = .5", { a: 0.5 }],
  ["hex", "a = 0x1F\nb = 0XfF\nc = -0x10", { a: 31, b: 255, c: -16 }],
  ["octal as HCL1 reads it", "a = 0755", { a: 493 }],
  ["zero", "a = 0", { a: 0 }],
  ["escapes", String.raw`a = "q\"b\\s\nn\tt\rr"`, { a: 'q"b\\s\nn\tt\rr' }],
  ["bell, backspace, form feed, vertical tab", String.raw`a = "\a\b\f\v"`, { a: "\x07\b\f\v" }],
  ["unicode escapes", String.raw`a = "\u00e9\U0001F600\x41\101"`, { a: "é😀AA" }],
  ["interpolation kept verbatim", 'a = "${var.x}"', { a: "${var.x}" }],
  ["quotes inside interpolation", 'a = "x ${lookup(m, "k")} y"', { a: 'x ${lookup(m, "k")} y' }],
  ["escapes inside interpolation left alone", 'a = "${f("\\n")}"', { a: '${f("\\n")}' }],
  ["non-ASCII string", 'a = "ünïcødé"', { a: "ünïcødé" }],
  ["heredoc", "a = <<EOF\nline 1\n  line 2\nEOF\n", { a: "line 1\n  line 2\n" }],
  ["heredoc at end of input", "a = <<EOF\nx\nEOF", { a: "x\n" }],
  ["empty heredoc", "a = <<EOF\nEOF\n", { a: "" }],
  ["heredoc terminator may be indented", "a = <<EOF\nx\n  EOF\n", { a: "x\n" }],
  ["heredoc keeps quotes and ${}", 'a = <<EOF\n"q" ${x}\nEOF\n', { a: '"q" ${x}\n' }],
  [
    "indented heredoc",
    "a = <<-EOT\n    one\n      two\n\n    three\n    EOT\n",
    { a: "one\n  two\n\nthree\n" },
  ],
  [
    "indented heredoc with a less indented line is kept",
    "a = <<-EOT\n    one\n  two\n    EOT\n",
    { a: "    one\n  two\n" },
  ],
  ["heredoc with CRLF", "a = <<EOF\r\nx\r\nEOF\r\nb = 1", { a: "x\r\n", b: 1 }],
  ["list", 'a = ["x", "y"]', { a: ["x", "y"] }],
  ["empty list", "a = []", { a: [] }],
  ["list with trailing comma over lines", "a = [\n  1,\n  2,\n]", { a: [1, 2] }],
  ["list of mixed values", 'a = [1, "b", true, 1.5]', { a: [1, "b", true, 1.5] }],
  ["nested lists", "a = [[1, 2], []]", { a: [[1, 2], []] }],
  [
    "list of objects",
    'a = [{ name = "x" }, { name = "y", port = 1 }]',
    { a: [{ name: "x" }, { name: "y", port: 1 }] },
  ],
  ["block", "ports { http = 8500 }", { ports: { http: 8500 } }],
  ["object assignment is the same as a block", "ports = { http = 8500 }", { ports: { http: 8500 } }],
  ["empty block", "a {}", { a: {} }],
  ["nested objects", "a = { b = { c = 1 } }", { a: { b: { c: 1 } } }],
  ["block inside an object value", "a = { b { c = 1 } }", { a: { b: { c: 1 } } }],
  [
    "repeated block becomes an array",
    'service { name = "a" }\nservice { name = "b" }\nservice { name = "c" }',
    { service: [{ name: "a" }, { name: "b" }, { name: "c" }] },
  ],
  [
    "labelled blocks become a map",
    'key_prefix "a/" { policy = "read" }\nkey_prefix "b/" { policy = "write" }',
    { key_prefix: { "a/": { policy: "read" }, "b/": { policy: "write" } } },
  ],
  [
    "several labels nest",
    'x "a" "b" { v = 1 }\nx "a" "c" { v = 2 }',
    { x: { a: { b: { v: 1 }, c: { v: 2 } } } },
  ],
  [
    "same labels repeated become an array",
    'key "k" { policy = "read" }\nkey "k" { policy = "deny" }',
    { key: { k: [{ policy: "read" }, { policy: "deny" }] } },
  ],
  ["bare identifier label", "service web { port = 1 }", { service: { web: { port: 1 } } }],
  ["repeated scalar keeps the last value", "a = 1\na = 2", { a: 2 }],
  ["repeated list concatenates", "a = [1]\na = [2, 3]", { a: [1, 2, 3] }],
  ["comment styles between tokens", "a /* c */ = # x\n 1 // y\n", { a: 1 }],
  ["byte-order mark", "\uFEFFa = 1", { a: 1 }],
  ["CRLF line endings", "a = 1\r\nb = 2\r\n", { a: 1, b: 2 }],
  ["__proto__ stays a plain key", "__proto__ = 1", JSON.parse('{"__proto__": 1}')],
];

describe("parseHcl constructs", () => {
  it.each(cases)("%s", (_name, text, expected) => {
    expect(parseHcl(text)).toEqual(expected);
  });

  it("decodes an ACL rule set as Consul writes it", () => {
    const rules = `
      key_prefix "" { policy = "read" }
      key_prefix "foo/" { policy = "write" }
      key "foo/private" { policy = "deny" }
      service_prefix "" { policy = "read" }
      service "web" { policy = "write" intentions = "read" }
      node_prefix "" { policy = "read" }
      session_prefix "" { policy = "write" }
      agent_prefix "" { policy = "read" }
      operator = "read"
      keyring = "deny"
    `;
    expect(parseHcl(rules)).toEqual({
      key_prefix: { "": { policy: "read" }, "foo/": { policy: "write" } },
      key: { "foo/private": { policy: "deny" } },
      service_prefix: { "": { policy: "read" } },
      service: { web: { policy: "write", intentions: "read" } },
      node_prefix: { "": { policy: "read" } },
      session_prefix: { "": { policy: "write" } },
      agent_prefix: { "": { policy: "read" } },
      operator: "read",
      keyring: "deny",
    });
  });

  it("decodes a config entry with blocks inside list elements", () => {
    const entry = `
      Kind = "service-router"
      Name = "web"
      Routes = [
        {
          Match {
            HTTP {
              PathPrefix = "/admin"
              Methods    = ["GET", "POST"]
            }
          }
          Destination {
            Service               = "admin"
            RequestTimeout        = "9.97s"
            NumRetries            = 3
            RetryOnConnectFailure = true
          }
        },
      ]
    `;
    expect(parseHcl(entry)).toEqual({
      Kind: "service-router",
      Name: "web",
      Routes: [
        {
          Match: { HTTP: { PathPrefix: "/admin", Methods: ["GET", "POST"] } },
          Destination: {
            Service: "admin",
            RequestTimeout: "9.97s",
            NumRetries: 3,
            RetryOnConnectFailure: true,
          },
        },
      ],
    });
  });

  it("keeps the __proto__ key without touching the prototype", () => {
    const value = parseHcl("__proto__ { polluted = true }");
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("JSON form", () => {
  it("reads text starting with '{' as JSON, as HCL1 does", () => {
    const rules = ' \n{"key_prefix": {"a/": {"policy": "read"}}, "operator": "write", "n": [1, 2.5, true]}';
    expect(parseHcl(rules)).toEqual({
      key_prefix: { "a/": { policy: "read" } },
      operator: "write",
      n: [1, 2.5, true],
    });
    expect(parseHclWithPositions('{"a": 1}').value).toEqual({ a: 1 });
  });

  it("drops null members as HCL1 does, and reports invalid JSON and null list elements", () => {
    expect(parseHcl('{"a": null, "b": {"c": null, "d": 1}}')).toEqual({ b: { d: 1 } });
    expect(() => parseHcl('{"a": }')).toThrow(HclParseError);
    expect(() => parseHcl('{"a": }')).toThrow(/^line 1, column \d+: invalid JSON: /);
    expect(() => parseHcl('{"a": [1, null]}')).toThrow(
      "line 1, column 1: invalid JSON for HCL: null values are not supported in lists",
    );
    expect(() => parseHcl("{} {}")).toThrow(HclParseError);
  });
});

describe("positions", () => {
  const text = [
    'datacenter = "dc1"',
    "service {",
    '  name = "a"',
    "}",
    "service {",
    '  name = "b"',
    "  tags = [",
    '    "x",',
    '    "y"',
    "  ]",
    "}",
    'key_prefix "a/" { policy = "read" }',
  ].join("\n");
  const doc = parseHclWithPositions(text);

  it.each([
    [["datacenter"], 1, 1],
    [["service", 0], 2, 1],
    [["service", 1, "name"], 6, 3],
    [["service", 1, "tags", 1], 9, 5],
    [["key_prefix", "a/"], 12, 12],
    [["key_prefix", "a/", "policy"], 12, 19],
  ] as const)("%j is at line %i, column %i", (path, line, column) => {
    expect(doc.positionOf(path)).toMatchObject({ line, column });
  });

  it("answers undefined for a path that does not exist", () => {
    expect(doc.positionOf(["nope"])).toBeUndefined();
    expect(doc.positionOf(["service", 5])).toBeUndefined();
  });

  it("exposes the syntax tree with positions", () => {
    const tree = parseHclSyntax('a "b" { c = 1 }');
    const item = tree.items[0]!;
    expect(item.keys.map((k) => [k.name, k.position.column])).toEqual([
      ["a", 1],
      ["b", 3],
    ]);
    expect(item.value.kind).toBe("object");
  });
});
