// biome-ignore-all lint/suspicious/noTemplateCurlyInString: HCL interpolations written literally are the subject under test.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HclParseError, parseHcl, parseHclWithPositions } from "../src/index.js";

/** Pieces of HCL that random concatenation turns into near-valid, deeply broken and odd input alike. */
const fragment = fc.constantFrom(
  "a",
  "service",
  '"web"',
  '"x\\n"',
  '"${a("b")}"',
  "=",
  "{",
  "}",
  "[",
  "]",
  ",",
  " ",
  "\n",
  "\r\n",
  "1",
  "-2",
  "0x1f",
  "07",
  "1.5e3",
  "true",
  "<<EOF\nx\nEOF\n",
  "<<-EOT\n  y\n  EOT\n",
  "<<",
  "# c\n",
  "// c\n",
  "/* c */",
  "/*",
  '"',
  "\\",
  "$",
  "${",
  "\u00e9",
  "\uD800",
);

function parsesOrThrowsTyped(text: string): void {
  try {
    const value = parseHcl(text);
    // Whatever parses must be plain JSON data.
    expect(JSON.parse(JSON.stringify(value))).toEqual(value);
  } catch (error) {
    if (!(error instanceof HclParseError)) throw error;
    expect(error.message).toMatch(/^line \d+, column \d+: [^\n]+$/);
  }
}

describe("parseHcl fuzz", () => {
  it("never throws anything but HclParseError on random text", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), parsesOrThrowsTyped), {
      numRuns: 3000,
    });
  });

  it("never throws anything but HclParseError on random HCL fragments", () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 60 }), (parts) => parsesOrThrowsTyped(parts.join(""))),
      { numRuns: 5000 },
    );
  });

  it("never throws anything but HclParseError on random JSON", () => {
    fc.assert(fc.property(fc.json({ maxDepth: 4 }), parsesOrThrowsTyped), { numRuns: 2000 });
  });

  it("round-trips generated documents", () => {
    const key = fc.stringMatching(/^[a-z_][a-z0-9_-]{0,8}$/).filter((k) => k !== "true" && k !== "false");
    const scalar = fc.oneof(
      fc.string({ maxLength: 12 }).filter((s) => !s.includes("${")),
      fc.integer({ min: -1_000_000, max: 1_000_000 }),
      fc.boolean(),
    );
    const document = fc.dictionary(
      key,
      fc.oneof(scalar, fc.array(scalar, { maxLength: 4 }), fc.dictionary(key, scalar)),
      {
        maxKeys: 6,
      },
    );
    fc.assert(
      fc.property(document, (doc) => {
        const text = Object.entries(doc)
          .map(([k, v]) => `${k} = ${render(v)}`)
          .join("\n");
        expect(parseHclWithPositions(text).value).toEqual(doc);
      }),
      { numRuns: 500 },
    );
  });
});

function render(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(render).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    return `{\n${Object.entries(value)
      .map(([k, v]) => `${k} = ${render(v)}`)
      .join("\n")}\n}`;
  }
  return JSON.stringify(value);
}
