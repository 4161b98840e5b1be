// The issue's ACL benchmark: a token with ten policies of twenty rules each authorizing KV operations.
//   node --import tsx packages/acl/test/bench.ts
// Reports ns/op for a decision on a resolved authorizer, for the HTTP seam's full path (cache lookup by
// secret, then the decision), and what a cache miss costs (parse once per policy version, compile per set).

import {
  type AclPolicyRecord,
  type AclSecretLookups,
  type AclTokenRecord,
  AuthorizerCache,
  CompiledRules,
  parseRules,
  resolveSecret,
  TokenAuthorizer,
} from "../src/index.js";

const POLICIES = 10;
const RULES_PER_POLICY = 20;

/** Twenty rules per policy: key prefixes and exact keys at several depths, plus service, node and session rules. */
function policyText(p: number): string {
  const lines: string[] = [];
  for (let r = 0; r < RULES_PER_POLICY; r++) {
    const policy = ["read", "write", "list", "deny"][(p + r) % 4];
    switch (r % 5) {
      case 0:
        lines.push(`key_prefix "app/team-${p}/svc-${r}/" { policy = "${policy}" }`);
        break;
      case 1:
        lines.push(`key "app/team-${p}/svc-${r}/config" { policy = "${policy}" }`);
        break;
      case 2:
        lines.push(`key_prefix "shared/${r}/" { policy = "${policy}" }`);
        break;
      case 3:
        lines.push(`service_prefix "svc-${p}-${r}" { policy = "${policy === "list" ? "read" : policy}" }`);
        break;
      default:
        lines.push(`node_prefix "node-${p}-${r}" { policy = "${policy === "list" ? "read" : policy}" }`);
    }
  }
  return lines.join("\n");
}

const policies = new Map<string, AclPolicyRecord>();
for (let p = 0; p < POLICIES; p++)
  policies.set(`p${p}`, { ID: `p${p}`, Rules: policyText(p), ModifyIndex: 1 });
const token: AclTokenRecord = {
  AccessorID: "bench",
  SecretID: "bench-secret",
  Policies: [...policies.keys()].map((ID) => ({ ID })),
};
const lookups: AclSecretLookups = {
  policy: (id) => policies.get(id),
  role: () => undefined,
  namespaceDefaults: () => undefined,
  tokenBySecret: (secret) => (secret === token.SecretID ? token : undefined),
};

const keys: string[] = [];
for (let i = 0; i < 1024; i++) {
  const p = i % POLICIES;
  const r = (i * 7) % RULES_PER_POLICY;
  keys.push(
    [
      `app/team-${p}/svc-${r}/config`,
      `app/team-${p}/svc-${r}/data/item-${i}`,
      `shared/${r}/k-${i}`,
      `unmatched/path/${i}`,
    ][i % 4]!,
  );
}
const accesses = ["read", "write", "list"] as const;

function measure(label: string, ops: number, run: (i: number) => unknown): number {
  let sink = 0;
  for (let i = 0; i < Math.min(ops, 200_000); i++) if (run(i) === "allow") sink++; // warm up
  const started = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) if (run(i) === "allow") sink++;
  const ns = Number(process.hrtime.bigint() - started) / ops;
  process.stderr.write(`${label}: ${ns.toFixed(1)} ns/op (${sink} allowed)\n`);
  return ns;
}

const cache = new AuthorizerCache({ clock: () => Date.now() });
const seam = new TokenAuthorizer({
  cache,
  lookups,
  aclIndex: () => 42,
  datacenter: "dc1",
  defaultPolicy: "deny",
  anonymousSecret: "anonymous",
});
const resolved = seam.forToken(token.SecretID);

const rows: [string, number][] = [];
rows.push([
  "decision on a resolved authorizer (KV key, read/write/list)",
  measure("resolved", 3_000_000, (i) =>
    resolved.authorize("default", "key", keys[i & 1023]!, accesses[i % 3]!),
  ),
]);
rows.push([
  "HTTP seam: cache lookup by secret + decision",
  measure("seam", 3_000_000, (i) =>
    seam.authorize(token.SecretID, "default", "key", keys[i & 1023]!, accesses[i % 3]!),
  ),
]);
rows.push([
  "parse one 20-rule policy",
  measure("parse", 5_000, (i) => parseRules(policies.get(`p${i % POLICIES}`)!.Rules).rules.rules.length),
]);
const sources = [...policies.values()].map((p) => ({
  namespace: "default",
  rules: parseRules(p.Rules).rules,
}));
rows.push([
  "compile the token's 10 parsed policies (merge + radix trees)",
  measure("compile", 5_000, () => new CompiledRules(sources).decide("default", "key", "x", "read")),
]);
rows.push([
  "cache miss with parsed policies and a compiled set (new token, same policies)",
  measure("resolve", 50_000, () =>
    resolveSecret(token.SecretID, lookups, {
      now: Date.now(),
      datacenter: "dc1",
      defaultPolicy: "deny",
      rules: cache.rules,
    }).authorizer.authorize("default", "key", "x", "read"),
  ),
]);

process.stdout.write(
  `\n## ACL authorizer (${POLICIES} policies x ${RULES_PER_POLICY} rules)\n\n| operation | ns/op |\n|---|---|\n${rows
    .map(([name, ns]) => `| ${name} | ${ns.toFixed(0)} |`)
    .join("\n")}\n`,
);
