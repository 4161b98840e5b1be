import type { AuthMethod, BindingRule } from "./auth-methods.js";

declare module "../store/tables.js" {
  interface TableRows {
    /** ns \0 name -> auth method */
    aclAuthMethods: AuthMethod;
    /** binding rule ID -> binding rule */
    aclBindingRules: BindingRule;
  }
  interface TableIndexes {
    aclAuthMethods: number;
    aclBindingRules: number;
  }
}
