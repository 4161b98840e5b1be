import { describe, expect, it } from "vitest";
import { allowedRedirect } from "../../src/auth-methods/oidc.js";
import { OidcStates, type PendingLogin } from "../../src/auth-methods/oidc-states.js";

const login = (n: number): PendingLogin => ({
  methodName: `m${n}`,
  methodNamespace: "default",
  redirectUri: "http://localhost:8550/oidc/callback",
  nonce: "n",
  codeVerifier: "v",
  clientNonce: "c",
  meta: {},
});

describe("pending OIDC logins", () => {
  it("are used once and expire", () => {
    const states = new OidcStates(1000);
    states.add("a", login(1), 0);
    states.add("b", login(2), 500);
    expect(states.take("a", 999)?.methodName).toBe("m1");
    expect(states.take("a", 999)).toBeUndefined();
    expect(states.take("b", 1500)).toBeUndefined();
  });

  it("are bounded in number, the oldest dropped first", () => {
    const states = new OidcStates(60_000, 3);
    for (let i = 0; i < 10; i++) states.add(`s${i}`, login(i), i);
    expect(states.size).toBe(3);
    expect(states.take("s6", 10)).toBeUndefined();
    expect(states.take("s9", 10)?.methodName).toBe("m9");
  });
});

describe("redirect URIs", () => {
  const allowed = ["http://localhost:8550/oidc/callback", "https://ui.example.test/oidc/callback"];
  it("match exactly, except for the port of a loopback address (RFC 8252)", () => {
    expect(allowedRedirect("https://ui.example.test/oidc/callback", allowed)).toBe(true);
    expect(allowedRedirect("https://ui.example.test:8443/oidc/callback", allowed)).toBe(false);
    expect(allowedRedirect("http://localhost:39123/oidc/callback", allowed)).toBe(true);
    expect(allowedRedirect("http://localhost/oidc/callback", allowed)).toBe(true);
    expect(allowedRedirect("http://localhost:39123/other", allowed)).toBe(false);
    expect(allowedRedirect("http://127.0.0.1:39123/oidc/callback", allowed)).toBe(false);
    expect(allowedRedirect("not a url", allowed)).toBe(false);
  });
});
