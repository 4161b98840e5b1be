import {
  type HclNode,
  type HclObject,
  HclParseError,
  type HclPath,
  type HclValue,
  parseHclSyntax,
  parseHclWithPositions,
} from "@cairn/hcl";
import { levelOf, type PolicyName, takesPrecedence } from "./access.js";
import { AclRulesError } from "./errors.js";
import {
  LABELLED_RESOURCES,
  type LabelledResource,
  type LabelledRule,
  type NamespaceRules,
  type PolicyRules,
  SINGLETON_RESOURCES,
  type SingletonResource,
} from "./rules.js";

export interface ParseRulesOptions {
  /**
   * `legacy` is the rule syntax of the ID-based ACL API (`/v1/acl/create`): `key "foo/"` means every key
   * starting with `foo/`, and there are no `_prefix` forms. Default `current`.
   */
  readonly syntax?: "current" | "legacy";
  /**
   * The namespace the policy lives in (default `default`). Outside `default`, namespace blocks are refused
   * and the namespace restrictions apply to the top level.
   */
  readonly namespace?: string;
}

export interface ParsedRules {
  readonly rules: PolicyRules;
  /** Accepted content that has no effect in Cairn (partition blocks other than `default`, sentinel code). */
  readonly warnings: readonly string[];
}

type Positions = (path: HclPath) => { line: number; column: number } | undefined;

const LABELLED = new Map<string, { resource: LabelledResource; prefix: boolean }>(
  LABELLED_RESOURCES.flatMap((resource) => [
    [resource, { resource, prefix: false }],
    [`${resource}_prefix`, { resource, prefix: true }],
  ]),
);
const SINGLETONS = new Set<string>(SINGLETON_RESOURCES);
/** Legacy syntax: the labelled resources it knew, all of them prefix rules. */
const LEGACY_LABELLED = new Set(["agent", "event", "key", "node", "query", "service", "session"]);
const LEGACY_SINGLETONS = new Set(["keyring", "operator"]);

const POLICY_NAMES = ["deny", "read", "list", "write"] as const;

/**
 * Where a body sits: the top level, inside a namespace block (`restricted` unless it is `namespace
 * "default"`, whose rules are operator-grade like the top level), or inside a partition block.
 */
interface Scope {
  readonly kind: "top" | "namespace" | "partition";
  readonly restricted: boolean;
}

/**
 * Parses Consul's ACL rule language (HCL or its JSON form) into typed rules. Validates every policy value
 * (case-insensitively, as Consul does), `list` only on key rules, `intentions` only on service and identity
 * rules, and the namespace restrictions (no operator, event, keyring, query, mesh or peering rules and no
 * node write inside a namespace other than `default`). Throws AclRulesError only.
 */
export function parseRules(text: string, options: ParseRulesOptions = {}): ParsedRules {
  if (text.trim() === "") return { rules: { singletons: {}, rules: [], namespaces: [] }, warnings: [] };
  let value: HclObject;
  let positionOf: Positions;
  try {
    const doc = parseHclWithPositions(text);
    value = doc.value;
    positionOf = doc.positionOf;
    if (!text.trimStart().startsWith("{")) rejectRepeatedSettings(parseHclSyntax(text));
  } catch (err) {
    if (err instanceof HclParseError) throw new AclRulesError(err.reason, err);
    // @cairn/hcl bounds block nesting but not the number of labels on one block, whose decoding recurses.
    if (err instanceof RangeError) throw new AclRulesError("rules are nested too deeply to parse");
    throw err;
  }
  const parser = new RulesParser(positionOf, options);
  const ns = options.namespace ?? "default";
  const rules = parser.body(value, [], { kind: "top", restricted: ns !== "default" });
  return { rules, warnings: parser.warnings };
}

class RulesParser {
  readonly warnings: string[] = [];
  private readonly legacy: boolean;
  private readonly inDefaultNamespace: boolean;

  constructor(
    private readonly positionOf: Positions,
    options: ParseRulesOptions,
  ) {
    this.legacy = options.syntax === "legacy";
    this.inDefaultNamespace = (options.namespace ?? "default") === "default";
  }

  /** Fails at `path`, or at its nearest enclosing key that has a position (a missing field has none). */
  private fail(path: HclPath, reason: string): never {
    for (let n = path.length; n > 0; n--) {
      const position = this.positionOf(path.slice(0, n));
      if (position !== undefined) throw new AclRulesError(reason, position);
    }
    throw new AclRulesError(reason);
  }

  body(obj: HclObject, path: HclPath, scope: Scope): PolicyRules {
    const singletons: Partial<Record<SingletonResource, PolicyName>> = {};
    const rules: LabelledRule[] = [];
    const namespaces: NamespaceRules[] = [];
    for (const [key, value] of Object.entries(obj)) {
      const at = [...path, key];
      if (key === "policy" && scope.kind === "namespace") continue; // read by the namespace block itself
      if (this.legacy) {
        if (LEGACY_SINGLETONS.has(key)) this.singleton(key as SingletonResource, value, at, singletons);
        else if (LEGACY_LABELLED.has(key))
          this.labelled(key as LabelledResource, true, key, value, at, rules, scope);
        else this.fail(at, `unknown ACL resource ${JSON.stringify(key)} in legacy rules`);
        continue;
      }
      const labelled = LABELLED.get(key);
      if (labelled) {
        this.checkAllowed(key, scope, at);
        this.labelled(labelled.resource, labelled.prefix, key, value, at, rules, scope);
      } else if (SINGLETONS.has(key)) {
        this.checkAllowed(key, scope, at);
        this.singleton(key as SingletonResource, value, at, singletons);
      } else if (key === "namespace" || key === "namespace_prefix") {
        if (scope.kind === "namespace") this.fail(at, `${key} rules cannot be nested in a namespace`);
        if (!this.inDefaultNamespace) this.fail(at, `${key} rules are only allowed in the default namespace`);
        this.namespaceBlocks(key, value, at, namespaces);
      } else if (key === "partition" || key === "partition_prefix") {
        if (scope.kind !== "top") this.fail(at, `${key} rules are only allowed at the top level`);
        this.partitionBlocks(key, value, at, singletons, rules, namespaces);
      } else {
        this.fail(at, `unknown ACL resource ${JSON.stringify(key)}`);
      }
    }
    return { singletons, rules, namespaces };
  }

  /** The namespace restrictions: operator-grade resources belong to the default namespace only. */
  private checkAllowed(key: string, scope: Scope, at: HclPath): void {
    if (scope.kind === "namespace" && (key === "mesh" || key === "peering")) {
      this.fail(at, `${key} rules are not allowed inside a namespace`);
    }
    if (!scope.restricted) return;
    const base = key.replace(/_prefix$/, "");
    if (base === "operator" || base === "event" || base === "keyring" || base === "query") {
      this.fail(at, `${key} rules are not allowed in a namespace other than default`);
    }
  }

  private singleton(
    resource: SingletonResource,
    value: HclValue,
    at: HclPath,
    out: Partial<Record<SingletonResource, PolicyName>>,
  ): void {
    if (typeof value !== "string") this.fail(at, `${resource} must be a string policy (read, write or deny)`);
    // An empty singleton is "no rule", as Consul allows.
    if (value === "") return;
    out[resource] = this.policyValue(value, false, at, resource);
  }

  private policyValue(
    value: HclValue | undefined,
    allowList: boolean,
    at: HclPath,
    what: string,
  ): PolicyName {
    const expected = allowList ? "read, write, list or deny" : "read, write or deny";
    if (value === undefined) this.fail(at, `missing policy for ${what} (expected ${expected})`);
    const name = typeof value === "string" ? value.toLowerCase() : undefined;
    const policy = POLICY_NAMES.find((p) => p === name);
    if (policy === undefined || (policy === "list" && !allowList)) {
      this.fail(at, `invalid policy ${JSON.stringify(value)} for ${what} (expected ${expected})`);
    }
    return policy;
  }

  /** Visits each `label → body` of a labelled key, whether one object, an array of them (JSON lists), or a repeated label. */
  private eachLabel(
    key: string,
    value: HclValue,
    at: HclPath,
    visit: (label: string, body: HclObject, path: HclPath) => void,
  ) {
    const objects = Array.isArray(value)
      ? value.map((v, i) => [v, [...at, i]] as const)
      : [[value, at] as const];
    for (const [obj, objPath] of objects) {
      if (!isObject(obj))
        this.fail(objPath, `${key} rules need a label and a block, as in ${key} "name" { ... }`);
      for (const [label, body] of Object.entries(obj)) {
        const labelPath = [...objPath, label];
        const bodies = Array.isArray(body)
          ? body.map((b, i) => [b, [...labelPath, i]] as const)
          : [[body, labelPath] as const];
        for (const [b, bodyPath] of bodies) {
          if (!isObject(b)) this.fail(bodyPath, `${key} ${JSON.stringify(label)} must be a block`);
          visit(label, b, bodyPath);
        }
      }
    }
  }

  private labelled(
    resource: LabelledResource,
    prefix: boolean,
    key: string,
    value: HclValue,
    at: HclPath,
    out: LabelledRule[],
    scope: Scope,
  ): void {
    this.eachLabel(key, value, at, (name, body, path) => {
      const what = `${key} ${JSON.stringify(name)}`;
      const hasIntentions = resource === "service" || resource === "identity";
      for (const field of Object.keys(body)) {
        if (field === "policy" || (field === "intentions" && hasIntentions)) continue;
        if (field === "sentinel" && (resource === "key" || resource === "node" || resource === "service")) {
          this.warnings.push(`${what}: sentinel code is not supported and is ignored`);
          continue;
        }
        this.fail([...path, field], `unknown field ${JSON.stringify(field)} in ${what}`);
      }
      const policy = this.policyValue(body.policy, resource === "key", [...path, "policy"], what);
      if (resource === "node" && policy === "write" && scope.restricted) {
        this.fail([...path, "policy"], `${what} cannot grant write in a namespace other than default`);
      }
      const rule: LabelledRule =
        body.intentions !== undefined && body.intentions !== ""
          ? {
              resource,
              name,
              prefix,
              policy,
              intentions: this.policyValue(
                body.intentions,
                false,
                [...path, "intentions"],
                `intentions of ${what}`,
              ),
            }
          : { resource, name, prefix, policy };
      out.push(rule);
    });
  }

  private namespaceBlocks(key: string, value: HclValue, at: HclPath, out: NamespaceRules[]): void {
    const prefix = key === "namespace_prefix";
    this.eachLabel(key, value, at, (name, body, path) => {
      const what = `${key} ${JSON.stringify(name)}`;
      const rules = this.body(body, path, { kind: "namespace", restricted: prefix || name !== "default" });
      const policy =
        body.policy === undefined
          ? undefined
          : this.policyValue(body.policy, false, [...path, "policy"], what);
      out.push(policy === undefined ? { name, prefix, rules } : { name, prefix, policy, rules });
    });
  }

  /**
   * Cairn has exactly one admin partition, `default`. Rules inside a partition block that covers it
   * (`partition "default"`, or a `partition_prefix` that `default` starts with) apply as top-level rules;
   * any other partition block is validated, then ignored with a warning.
   */
  private partitionBlocks(
    key: string,
    value: HclValue,
    at: HclPath,
    singletons: Partial<Record<SingletonResource, PolicyName>>,
    rules: LabelledRule[],
    namespaces: NamespaceRules[],
  ): void {
    const prefix = key === "partition_prefix";
    this.eachLabel(key, value, at, (name, body, path) => {
      const inner = this.body(body, path, { kind: "partition", restricted: !this.inDefaultNamespace });
      const covers = prefix ? "default".startsWith(name) : name === "default";
      if (!covers) {
        this.warnings.push(
          `${key} ${JSON.stringify(name)}: Cairn has only the default partition; these rules are ignored`,
        );
        return;
      }
      for (const [resource, policy] of Object.entries(inner.singletons) as [
        SingletonResource,
        PolicyName,
      ][]) {
        const existing = singletons[resource];
        if (takesPrecedence(levelOf(policy), existing && levelOf(existing))) singletons[resource] = policy;
      }
      rules.push(...inner.rules);
      namespaces.push(...inner.namespaces);
    });
  }
}

/**
 * Consul decodes rules refusing a setting given twice in one body (`acl = "read"` then `acl = "write"`, or
 * `policy` twice in a block) rather than keeping the last; repeated blocks are fine.
 */
function rejectRepeatedSettings(node: HclNode): void {
  if (node.kind === "list") {
    for (const item of node.items) rejectRepeatedSettings(item);
    return;
  }
  if (node.kind !== "object") return;
  const seen = new Set<string>();
  for (const item of node.items) {
    const key = item.keys[0]!;
    if (item.keys.length === 1 && item.value.kind !== "object") {
      if (seen.has(key.name)) {
        throw new AclRulesError(
          `${key.name} is set twice; each setting can only be defined once`,
          key.position,
        );
      }
      seen.add(key.name);
    }
    rejectRepeatedSettings(item.value);
  }
}

function isObject(value: HclValue | undefined): value is HclObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
