import { describe, expect, it } from "vitest";
import { decodeValue, renderValue, toHcl, toYaml } from "../src/views/kv/value-format.js";

describe("decodeValue", () => {
  it("decodes base64 UTF-8 and reports binary", () => {
    expect(decodeValue(Buffer.from("héllo ✓").toString("base64"))).toEqual({ kind: "text", text: "héllo ✓" });
    expect(decodeValue(null)).toEqual({ kind: "text", text: "" });
    expect(decodeValue(Buffer.from([0xff, 0xfe, 0x00]).toString("base64"))).toEqual({
      kind: "binary",
      size: 3,
    });
  });
});

describe("renderValue", () => {
  it("pretty-prints JSON and explains text that is not JSON", () => {
    expect(renderValue('{"a":[1,2]}', "json")).toEqual({
      ok: true,
      text: '{\n  "a": [\n    1,\n    2\n  ]\n}',
    });
    const bad = renderValue("{oops", "yaml");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/^not valid JSON/);
    expect(renderValue("{oops", "text")).toEqual({ ok: true, text: "{oops" });
  });
});

describe("toYaml", () => {
  it("renders nested objects and lists in block style", () => {
    const v = {
      name: "web",
      port: 8080,
      on: true,
      tags: ["a", "b c"],
      meta: { "x y": null, empty: {} },
      list: [{ k: 1, j: [2] }],
    };
    expect(toYaml(v)).toBe(
      [
        "name: web",
        "port: 8080",
        '"on": true',
        "tags:",
        "  - a",
        '  - "b c"',
        "meta:",
        '  "x y": null',
        "  empty: {}",
        "list:",
        "  - k: 1",
        "    j:",
        "      - 2",
      ].join("\n"),
    );
  });

  it("quotes strings that would read as other scalars", () => {
    expect(toYaml(["true", "12", "no", "", "a: b"])).toBe(
      ['- "true"', '- "12"', '- "no"', '- ""', '- "a: b"'].join("\n"),
    );
  });
});

describe("toHcl", () => {
  it("renders an object's members as attributes", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an HCL template sequence, escaped by toHcl
    expect(toHcl({ name: "web", "my key": { port: 1, tags: ["a"] }, tpl: "${x}" })).toBe(
      [
        'name = "web"',
        '"my key" = {',
        "  port = 1",
        "  tags = [",
        '    "a",',
        "  ]",
        "}",
        'tpl = "$${x}"',
      ].join("\n"),
    );
    expect(toHcl([1, null])).toBe("[\n  1,\n  null,\n]");
  });
});
