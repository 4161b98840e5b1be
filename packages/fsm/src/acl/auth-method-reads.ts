import { channelRead, type Read } from "../store/read.js";
import type { Tables } from "../store/tables.js";
import {
  type AuthMethod,
  AuthMethodChannels,
  authMethodKey,
  type BindingRule,
  rulesOf,
} from "./auth-methods.js";

/** Reads of auth methods and binding rules at one view; plain lookups serve login, `Read` forms HTTP. */
export class AuthMethodReads {
  constructor(
    private readonly t: Tables,
    private readonly viewIndex: number,
  ) {}

  #read<T>(value: T, index: number, channel: string): Read<T> {
    return channelRead({ t: this.t, index: this.viewIndex }, value, index, channel);
  }

  method(ns: string, name: string): AuthMethod | undefined {
    return this.t.aclAuthMethods.get(authMethodKey(ns, name));
  }

  rule(id: string): BindingRule | undefined {
    return this.t.aclBindingRules.get(id);
  }

  /** The binding rules of one method (what a login evaluates). */
  rulesOf(ns: string, method: string): BindingRule[] {
    return rulesOf(this.t, ns, method);
  }

  readMethod(ns: string, name: string): Read<AuthMethod | undefined> {
    return this.#read(this.method(ns, name), this.t.indexes.aclAuthMethods, AuthMethodChannels.methods);
  }

  /** Methods of a namespace (`*` for all), by namespace then name. */
  readMethods(ns: string): Read<AuthMethod[]> {
    const out = [...this.t.aclAuthMethods.values()].filter((m) => ns === "*" || m.Namespace === ns);
    return this.#read(out, this.t.indexes.aclAuthMethods, AuthMethodChannels.methods);
  }

  readRule(id: string): Read<BindingRule | undefined> {
    return this.#read(this.rule(id), this.t.indexes.aclBindingRules, AuthMethodChannels.rules);
  }

  /** Rules of a namespace (`*` for all), optionally of one method. */
  readRules(ns: string, method?: string): Read<BindingRule[]> {
    const out = [...this.t.aclBindingRules.values()].filter(
      (r) => (ns === "*" || r.Namespace === ns) && (!method || r.AuthMethod === method),
    );
    return this.#read(out, this.t.indexes.aclBindingRules, AuthMethodChannels.rules);
  }
}
