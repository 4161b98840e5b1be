import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type FieldKinds, parseSelector, SelectorError, selects } from "../../src/auth-methods/selector.js";
import { interpolate, TemplateError } from "../../src/auth-methods/template.js";

const fields: FieldKinds = new Map([
  ["value.user", "value"],
  ["value.team", "value"],
  ["list.groups", "list"],
]);
const identity = { "value.user": "alice", "value.team": "blue", "list.groups": ["ops", "dev"] };
const sel = (s: string) => selects(parseSelector(s, fields), identity);

describe("selectors", () => {
  it("==, !=, in, not in, contains, is empty, and binds tighter than or", () => {
    expect(sel("")).toBe(true);
    expect(sel('value.user == "alice"')).toBe(true);
    expect(sel("value.user == alice")).toBe(true);
    expect(sel("value.user != alice")).toBe(false);
    expect(sel('"ops" in list.groups')).toBe(true);
    expect(sel('"qa" not in list.groups')).toBe(true);
    expect(sel("list.groups contains dev")).toBe(true);
    expect(sel("list.groups is empty")).toBe(false);
    expect(sel("list.groups is not empty")).toBe(true);
    expect(sel("value.user == alice and value.team == red")).toBe(false);
    expect(sel("value.team == red or value.user == alice and ops in list.groups")).toBe(true);
    expect(sel('value.user == "al\\"ice"')).toBe(false);
  });

  it("refuses unknown fields, == on lists and malformed expressions", () => {
    for (const bad of [
      "value.nope == a",
      "list.groups == a",
      "value.user ==",
      "value.user alice",
      '"x',
      "a in",
      "value.user == a b",
    ]) {
      expect(() => parseSelector(bad, fields), bad).toThrow(SelectorError);
    }
  });

  it("never throws anything but SelectorError on arbitrary input", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          selects(parseSelector(text, fields), identity);
        } catch (err) {
          if (!(err instanceof SelectorError)) throw err;
        }
      }),
    );
  });
});

describe("templates", () => {
  const hil = (name: string) => ["$", "{", name, "}"].join("");
  it("fills known variables and refuses unknown or unterminated ones", () => {
    expect(
      interpolate(`svc-${hil("value.user")}-${hil(" value.team ")}`, {
        "value.user": "a",
        "value.team": "b",
      }),
    ).toBe("svc-a-b");
    expect(interpolate("plain", {})).toBe("plain");
    expect(() => interpolate(hil("x"), {})).toThrow(TemplateError);
    expect(() => interpolate("a-$" + "{x", { x: "1" })).toThrow(TemplateError);
  });
});
