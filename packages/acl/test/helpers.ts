import { Authorizer, CompiledRules, type DefaultPolicy, parseRules } from "../src/index.js";

/** A policy text and the namespace it lives in (default: `default`). */
export type PolicyText = string | { readonly namespace: string; readonly text: string };

export function compile(policies: readonly PolicyText[]): CompiledRules {
  return new CompiledRules(
    policies.map((p) => {
      const namespace = typeof p === "string" ? "default" : p.namespace;
      const text = typeof p === "string" ? p : p.text;
      return { namespace, rules: parseRules(text, { namespace }).rules };
    }),
  );
}

/** An authorizer from directly linked policies, optional namespace-default policies, and the default policy. */
export function authorizer(
  direct: readonly PolicyText[],
  defaultPolicy: DefaultPolicy = "deny",
  namespaceDefaults?: readonly PolicyText[],
): Authorizer {
  const chain = [compile(direct)];
  if (namespaceDefaults) chain.push(compile(namespaceDefaults));
  return new Authorizer(chain, defaultPolicy);
}
