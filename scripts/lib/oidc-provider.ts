import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/**
 * A real OpenID Provider (the certified `oidc-provider` package) on loopback, with its development
 * login and consent pages, and a scripted browser that walks them without a human.
 */

export interface TestProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  close(): Promise<void>;
}

export interface ProviderOptions {
  readonly redirectUris: readonly string[];
  /** The claims of each account (the login name is the account ID, any password works). */
  readonly accounts: Readonly<Record<string, Record<string, unknown>>>;
}

export async function startProvider(options: ProviderOptions): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = "cairn";
  const clientSecret = "a-client-secret-long-enough-for-hs256-0123456789";
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [...options.redirectUris],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: { openid: ["sub"], email: ["email"], profile: ["name", "groups", "team"] },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["cairn-test-cookie-key"] },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
    async findAccount(_ctx, sub) {
      const claims = options.accounts[sub];
      if (!claims) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...claims }) };
    },
  });
  // Quiet: the provider reports every refused request (the tests make some on purpose).
  provider.on("server_error", () => {});
  server.on("request", provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const attr = (tag: string, name: string) =>
  new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1]?.replaceAll("&amp;", "&");

/**
 * Follows `url` like a browser until a redirect to `stopAt` (returned, not requested, unless `visit`),
 * signing in as `login` and consenting on the provider's pages.
 */
export async function browse(
  url: string,
  login: string,
  stopAt: string,
  visit = false,
): Promise<{ url: URL; body?: string }> {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  let next: { url: string; method: "GET" | "POST"; body?: string } = { url, method: "GET" };
  for (let hops = 0; hops < 20; hops++) {
    if (next.url.startsWith(stopAt)) {
      if (!visit) return { url: new URL(next.url) };
      const res = await fetch(next.url);
      return { url: new URL(next.url), body: await res.text() };
    }
    const res = await fetch(next.url, {
      method: next.method,
      redirect: "manual",
      headers: {
        cookie: cookie(),
        ...(next.body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(next.body ? { body: next.body } : {}),
    });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(";");
      const eq = (pair ?? "").indexOf("=");
      if (eq > 0) jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      next = { url: new URL(location, next.url).href, method: "GET" };
      continue;
    }
    const html = await res.text();
    const form = /<form[^>]*>[\s\S]*?<\/form>/.exec(html)?.[0];
    if (res.status !== 200 || !form) throw new Error(`browser stuck at ${next.url}: ${res.status} ${html}`);
    const fields = new URLSearchParams();
    for (const input of form.match(/<input[^>]*>/g) ?? []) {
      const name = attr(input, "name");
      if (!name) continue;
      if (name === "login") fields.set(name, login);
      else if (name === "password") fields.set(name, "any");
      else fields.set(name, attr(input, "value") ?? "");
    }
    const action = attr(form.slice(0, form.indexOf(">") + 1), "action") ?? next.url;
    next = { url: new URL(action, next.url).href, method: "POST", body: fields.toString() };
  }
  throw new Error("browser: too many hops");
}
