import {
  type Access,
  DENY,
  type Decision,
  enforce,
  type Level,
  levelOf,
  needOf,
  type PolicyName,
  READ,
  takesPrecedence,
  WRITE,
} from "./access.js";
import { RuleTree } from "./rule-tree.js";
import type { LabelledResource, PolicyRules, SingletonResource } from "./rules.js";

/** Everything an authorizer answers about. `intentions` is derived from service rules, `namespace` from namespace blocks. */
export type Resource = LabelledResource | SingletonResource | "intentions" | "namespace";
type TreeResource = LabelledResource | "intentions" | "namespace";

/** One policy's rules and the namespace its top-level rules apply in. */
export interface PolicySource {
  readonly namespace: string;
  readonly rules: PolicyRules;
}

/** A partial decision: `default` when no rule covers the question, so the next authorizer in a chain decides. */
export interface RuleAuthorizer {
  decide(ns: string, resource: Resource, name: string, access: Access): Decision;
  /** Consul's KeyWritePrefix: may everything under `prefix` be deleted (a recursive KV delete)? */
  keyWritePrefix(ns: string, prefix: string): Decision;
  /** Consul's allAllowed (ServiceReadAll, NodeReadAll): `access` on every name of `resource`. */
  decideAll(ns: string, resource: Resource, access: Access): Decision;
  /** Consul's anyAllowed (ServiceWriteAny): `access` on at least one name of `resource`. */
  decideAny(ns: string, resource: Resource, access: Access): Decision;
  /** Does any rule in namespace `ns` grant some access (read, list or write)? */
  grantsAnythingIn(ns: string): boolean;
}

export const DEFAULT_NAMESPACE = "default";

const SINGLETON: Readonly<Record<Resource, boolean>> = {
  acl: true,
  keyring: true,
  mesh: true,
  operator: true,
  peering: true,
  agent: false,
  event: false,
  identity: false,
  intentions: false,
  key: false,
  namespace: false,
  node: false,
  query: false,
  service: false,
  session: false,
};

/**
 * Resources that belong to the partition rather than to a namespace (Consul refuses their rules inside a
 * namespace other than default): they are decided by the default namespace's rules whatever the request's
 * namespace.
 */
const PARTITION_LEVEL: Readonly<Record<Resource, boolean>> = {
  ...SINGLETON,
  acl: false,
  agent: true,
  event: true,
  namespace: true,
  query: true,
};

interface MergedRule {
  readonly resource: LabelledResource | "namespace";
  readonly name: string;
  readonly prefix: boolean;
  policy: Level;
  intentions: Level | undefined;
}

/** Merges rules of one namespace scope from any number of policies, as Consul's PolicyMerger does. */
class ScopeBuilder {
  private readonly singletons: Partial<Record<SingletonResource, Level>> = {};
  private readonly rules = new Map<string, MergedRule>();

  addPolicy(rules: PolicyRules): void {
    for (const [resource, policy] of Object.entries(rules.singletons) as [SingletonResource, PolicyName][]) {
      const level = levelOf(policy);
      if (takesPrecedence(level, this.singletons[resource])) this.singletons[resource] = level;
    }
    for (const r of rules.rules) {
      this.addRule(r.resource, r.name, r.prefix, levelOf(r.policy), r.intentions && levelOf(r.intentions));
    }
  }

  /** Same resource, label and kind (exact or prefix): the policy and the intentions merge separately. */
  addRule(
    resource: LabelledResource | "namespace",
    name: string,
    prefix: boolean,
    policy: Level,
    intentions: Level | undefined,
  ): void {
    const key = `${resource}\u0000${prefix ? "p" : "e"}\u0000${name}`;
    const existing = this.rules.get(key);
    if (existing === undefined) {
      this.rules.set(key, { resource, name, prefix, policy, intentions });
      return;
    }
    if (takesPrecedence(policy, existing.policy)) existing.policy = policy;
    if (intentions !== undefined && takesPrecedence(intentions, existing.intentions))
      existing.intentions = intentions;
  }

  build(): Scope {
    const trees: Partial<Record<TreeResource, RuleTree>> = {};
    const insert = (resource: TreeResource, name: string, prefix: boolean, level: Level) => {
      let tree = trees[resource];
      if (tree === undefined) {
        tree = new RuleTree();
        trees[resource] = tree;
      }
      const leaf = tree.leafFor(name);
      if (prefix) leaf.prefix = level;
      else leaf.exact = level;
    };
    for (const r of this.rules.values()) {
      insert(r.resource, r.name, r.prefix, r.policy);
      if (r.resource === "service") {
        // Consul's policyAuthorizer: without an explicit `intentions`, read or write on the service
        // grants intentions read, and deny denies them.
        insert("intentions", r.name, r.prefix, r.intentions ?? (Math.min(r.policy, READ) as Level));
      }
    }
    const grantsAnything =
      Object.values(this.singletons).some((level) => level > DENY) ||
      [...this.rules.values()].some((r) => r.policy > DENY || (r.intentions ?? DENY) > DENY);
    return new Scope({ ...this.singletons }, trees, grantsAnything);
  }
}

/** The compiled rules of one namespace scope. */
class Scope {
  constructor(
    private readonly singletons: Partial<Record<SingletonResource, Level>>,
    private readonly trees: Partial<Record<TreeResource, RuleTree>>,
    readonly grantsAnything: boolean,
  ) {}

  decide(resource: Resource, name: string, need: Level): Decision {
    // Consul: the wildcard intention name asks about every destination (write) or any of them (read).
    if (resource === "intentions" && name === "*")
      return need === WRITE ? this.all(resource, need) : this.any(resource, need);
    if (SINGLETON[resource]) {
      let level = this.singletons[resource as SingletonResource];
      // Consul: without a mesh or peering rule, the same policy's operator rule decides.
      if (level === undefined && (resource === "mesh" || resource === "peering"))
        level = this.singletons.operator;
      return enforce(level, need);
    }
    const tree = this.trees[resource as TreeResource];
    return tree === undefined ? "default" : enforce(tree.lookup(name), need);
  }

  /**
   * Consul's allAllowed: a catch-all `""` prefix rule that denies decides at once; otherwise any rule that
   * denies (an exact rule overriding its own label's prefix rule) denies; otherwise the catch-all decides.
   */
  all(resource: Resource, need: Level): Decision {
    if (SINGLETON[resource]) return this.decide(resource, "", need);
    const tree = this.trees[resource as TreeResource];
    if (tree === undefined) return "default";
    const catchAll = enforce(tree.leafAt("")?.prefix, need);
    if (catchAll === "deny") return "deny";
    for (const { leaf } of tree.under("")) {
      const prefix = enforce(leaf.prefix, need);
      if (prefix === "deny") return "deny";
      if (leaf.exact !== undefined && enforce(leaf.exact, need) === "deny") return "deny";
    }
    return catchAll;
  }

  /**
   * Consul's anyAllowed: a catch-all `""` prefix rule that allows decides at once; otherwise any rule that
   * allows allows; otherwise the catch-all's deny, or no decision.
   */
  any(resource: Resource, need: Level): Decision {
    if (SINGLETON[resource]) return this.decide(resource, "", need);
    const tree = this.trees[resource as TreeResource];
    if (tree === undefined) return "default";
    const catchAll = enforce(tree.leafAt("")?.prefix, need);
    if (catchAll === "allow") return "allow";
    for (const { leaf } of tree.under("")) {
      if (enforce(leaf.prefix, need) === "allow" || enforce(leaf.exact, need) === "allow") return "allow";
    }
    return catchAll;
  }

  /**
   * Consul's KeyWritePrefix: deny when the longest prefix rule covering `prefix` is not write, or when any
   * rule (exact or prefix) at or under `prefix` is not write; allow when a covering prefix rule grants
   * write; otherwise no decision.
   */
  keyWritePrefix(prefix: string): Decision {
    const tree = this.trees.key;
    if (tree === undefined) return "default";
    const base = tree.longestPrefixRule(prefix);
    if (base !== undefined && base !== WRITE) return "deny";
    for (const { leaf } of tree.under(prefix)) {
      if (
        (leaf.prefix !== undefined && leaf.prefix !== WRITE) ||
        (leaf.exact !== undefined && leaf.exact !== WRITE)
      ) {
        return "deny";
      }
    }
    return base === undefined ? "default" : "allow";
  }
}

const MAX_MEMOIZED_NAMESPACES = 1024;

function decideIn(chain: readonly Scope[], resource: Resource, name: string, need: Level): Decision {
  for (let i = 0; i < chain.length; i++) {
    const decision = chain[i]!.decide(resource, name, need);
    if (decision !== "default") return decision;
  }
  return "default";
}

/**
 * The merged, compiled rules of a set of policies. Top-level rules apply in the namespace of their policy;
 * `namespace` blocks in the namespace they name, `namespace_prefix` blocks in every namespace they prefix.
 * For a namespace, the scopes are asked in order (the exact one, then prefix scopes longest first) and the
 * first that decides wins, so a more specific namespace block overrides a broader one, including with deny.
 * (Consul Enterprise's namespace matching is not public; this follows the exact-then-longest-prefix rule
 * every other resource uses.)
 */
export class CompiledRules implements RuleAuthorizer {
  private readonly exact = new Map<string, Scope>();
  private readonly prefixes: { readonly name: string; readonly scope: Scope }[] = [];
  private readonly chains = new Map<string, readonly Scope[]>();

  constructor(sources: readonly PolicySource[]) {
    const exact = new Map<string, ScopeBuilder>();
    const prefixes = new Map<string, ScopeBuilder>();
    const builder = (map: Map<string, ScopeBuilder>, name: string) => {
      let b = map.get(name);
      if (b === undefined) {
        b = new ScopeBuilder();
        map.set(name, b);
      }
      return b;
    };
    for (const source of sources) {
      builder(exact, source.namespace).addPolicy(source.rules);
      for (const ns of source.rules.namespaces) {
        builder(ns.prefix ? prefixes : exact, ns.name).addPolicy(ns.rules);
        if (ns.policy !== undefined) {
          builder(exact, DEFAULT_NAMESPACE).addRule(
            "namespace",
            ns.name,
            ns.prefix,
            levelOf(ns.policy),
            undefined,
          );
        }
      }
    }
    for (const [name, b] of exact) this.exact.set(name, b.build());
    for (const [name, b] of prefixes) this.prefixes.push({ name, scope: b.build() });
    this.prefixes.sort((a, b) => b.name.length - a.name.length);
  }

  /** An empty namespace is the default one. */
  decide(ns: string, resource: Resource, name: string, access: Access): Decision {
    const need = needOf(access);
    if (
      PARTITION_LEVEL[resource] ||
      ns === DEFAULT_NAMESPACE ||
      ns === "" ||
      (resource === "node" && access === "write")
    ) {
      return decideIn(this.chainFor(DEFAULT_NAMESPACE), resource, name, need);
    }
    const decision = decideIn(this.chainFor(ns), resource, name, need);
    // Nodes belong to the partition: a namespace may grant node read, and the default namespace's node
    // rules still cover requests made in other namespaces (node write is only grantable there).
    if (decision !== "default" || resource !== "node") return decision;
    return decideIn(this.chainFor(DEFAULT_NAMESPACE), resource, name, need);
  }

  keyWritePrefix(ns: string, prefix: string): Decision {
    return this.firstDecision(this.chainFor(ns || DEFAULT_NAMESPACE), (scope) =>
      scope.keyWritePrefix(prefix),
    );
  }

  decideAll(ns: string, resource: Resource, access: Access): Decision {
    const need = needOf(access);
    return this.acrossScopes(ns, resource, access, (scope) => scope.all(resource, need));
  }

  decideAny(ns: string, resource: Resource, access: Access): Decision {
    const need = needOf(access);
    return this.acrossScopes(ns, resource, access, (scope) => scope.any(resource, need));
  }

  grantsAnythingIn(ns: string): boolean {
    return this.chainFor(ns || DEFAULT_NAMESPACE).some((scope) => scope.grantsAnything);
  }

  /** The slow-path twin of `decide`'s scope selection, for questions asked rarely. */
  private acrossScopes(
    ns: string,
    resource: Resource,
    access: Access,
    ask: (scope: Scope) => Decision,
  ): Decision {
    const partition = PARTITION_LEVEL[resource] || ns === "" || (resource === "node" && access === "write");
    const decision = this.firstDecision(this.chainFor(partition ? DEFAULT_NAMESPACE : ns), ask);
    if (decision !== "default" || resource !== "node" || ns === DEFAULT_NAMESPACE) return decision;
    return this.firstDecision(this.chainFor(DEFAULT_NAMESPACE), ask);
  }

  private firstDecision(chain: readonly Scope[], ask: (scope: Scope) => Decision): Decision {
    for (const scope of chain) {
      const decision = ask(scope);
      if (decision !== "default") return decision;
    }
    return "default";
  }

  private chainFor(ns: string): readonly Scope[] {
    let chain = this.chains.get(ns);
    if (chain !== undefined) return chain;
    const scopes: Scope[] = [];
    const exact = this.exact.get(ns);
    if (exact !== undefined) scopes.push(exact);
    for (const p of this.prefixes) if (ns.startsWith(p.name)) scopes.push(p.scope);
    chain = scopes;
    // Namespace names come from requests; keep the memo bounded.
    if (this.chains.size >= MAX_MEMOIZED_NAMESPACES) this.chains.clear();
    this.chains.set(ns, chain);
    return chain;
  }
}
