import { describe, expect, it } from "vitest";
import { keyPath } from "../src/api/paths.js";
import { matchRoute, parseHash } from "../src/lib/route-match.js";
import { crumbs, listFolder, parentFolder } from "../src/views/kv/tree.js";

describe("listFolder", () => {
  it("folds a flat key list into the folders and leaves directly under a prefix", () => {
    const keys = ["b", "a/x", "a/y/z", "a/", "c/d", "a b/ü", "z"];
    expect(listFolder(keys, "").entries).toEqual([
      { name: "a", key: "a/", folder: true },
      { name: "a b", key: "a b/", folder: true },
      { name: "c", key: "c/", folder: true },
      { name: "b", key: "b", folder: false },
      { name: "z", key: "z", folder: false },
    ]);
    const inA = listFolder(keys, "a/");
    expect(inA.prefixIsKey).toBe(true);
    expect(inA.entries).toEqual([
      { name: "y", key: "a/y/", folder: true },
      { name: "x", key: "a/x", folder: false },
    ]);
  });

  it("takes Consul's ?keys&separator=/ answer as it is", () => {
    const listing = listFolder(["app/", "app/db/", "app/name", "app/web/"], "app/");
    expect(listing.prefixIsKey).toBe(true);
    expect(listing.entries.map((e) => e.key)).toEqual(["app/db/", "app/web/", "app/name"]);
  });

  it("keeps a key and a folder of the same name apart, and empty and odd segments", () => {
    const keys = ["a", "a/", "a/b", "x//y", "q/%#?/..", "q/../r"];
    expect(listFolder(keys, "").entries.map((e) => e.key)).toEqual(["a/", "q/", "x/", "a"]);
    expect(listFolder(keys, "x/").entries).toEqual([{ name: "", key: "x//", folder: true }]);
    expect(listFolder(keys, "q/").entries).toEqual([
      { name: "%#?", key: "q/%#?/", folder: true },
      { name: "..", key: "q/../", folder: true },
    ]);
  });

  it("ignores keys outside the prefix", () => {
    expect(listFolder(["ab", "a/b"], "a/").entries).toEqual([{ name: "b", key: "a/b", folder: false }]);
  });
});

describe("crumbs and parentFolder", () => {
  it("lists the folders leading to a key", () => {
    expect(crumbs("a/b/c")).toEqual([
      { name: "Key/Value", prefix: "" },
      { name: "a", prefix: "a/" },
      { name: "b", prefix: "a/b/" },
    ]);
    expect(crumbs("a/b/").map((c) => c.prefix)).toEqual(["", "a/", "a/b/"]);
    expect(crumbs("x").map((c) => c.prefix)).toEqual([""]);
  });

  it("finds the folder holding a key or folder", () => {
    expect(parentFolder("a/b/c")).toBe("a/b/");
    expect(parentFolder("a/b/")).toBe("a/");
    expect(parentFolder("a")).toBe("");
    expect(parentFolder("a/")).toBe("");
  });
});

describe("keyPath", () => {
  const awkward = [
    "plain/key",
    "with space/and ünïcode ✓",
    "percent%/hash#/question?",
    "a/../b",
    "../x",
    "a/..",
    "a/./b/.",
    "trailing/",
    "double//slash",
    "<img src=x onerror=alert(1)>",
  ];

  it("keeps / and encodes each segment", () => {
    expect(keyPath("a b/c%d/e#f?g")).toBe("a%20b/c%25d/e%23f%3Fg");
    expect(keyPath("trailing/")).toBe("trailing/");
  });

  it("never leaves a dot segment the URL parser would collapse", () => {
    for (const key of awkward) {
      const url = new URL(`http://h/v1/kv/${keyPath(key)}`);
      expect(url.pathname.startsWith("/v1/kv/")).toBe(true);
      expect(decodeURIComponent(url.pathname.slice("/v1/kv/".length))).toBe(key);
      // The UI's own link to the key (a hash route) names the same key.
      expect(matchRoute("/kv/*key", parseHash(`#/kv/${keyPath(key)}`).path)?.key).toBe(key);
    }
  });
});
