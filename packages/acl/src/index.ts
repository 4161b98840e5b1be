export {
  type Access,
  type Decision,
  type PolicyName,
  takesPrecedence,
} from "./access.js";
export { Authorizer, type DefaultPolicy } from "./authorizer.js";
export {
  GLOBAL_MANAGEMENT_POLICY_DESCRIPTION,
  GLOBAL_MANAGEMENT_POLICY_ID,
  GLOBAL_MANAGEMENT_POLICY_NAME,
  GLOBAL_MANAGEMENT_RULES,
} from "./builtin.js";
export { AuthorizerCache, type AuthorizerCacheOptions } from "./cache.js";
export {
  CompiledRules,
  DEFAULT_NAMESPACE,
  type PolicySource,
  type Resource,
  type RuleAuthorizer,
} from "./compile.js";
export { AclIdentityError, AclNotFoundError, AclRulesError } from "./errors.js";
export {
  appliesIn,
  MAX_SERVICE_NAME_LENGTH,
  type NodeIdentity,
  nodeIdentityRules,
  type ServiceIdentity,
  serviceIdentityRules,
  validateNodeIdentity,
  validateServiceIdentity,
} from "./identities.js";
export { type ParsedRules, type ParseRulesOptions, parseRules } from "./parse.js";
export { type AclTokenRecords, recordedLookups, recordTokenResolution } from "./records.js";
export {
  type AclLink,
  type AclLookups,
  type AclPolicyRecord,
  type AclRoleRecord,
  type AclSecretLookups,
  type AclTokenRecord,
  type NamespaceAclDefaults,
  type ResolveContext,
  type ResolvedToken,
  RulesCache,
  resolveSecret,
  resolveToken,
} from "./resolve.js";
export {
  EMPTY_RULES,
  LABELLED_RESOURCES,
  type LabelledResource,
  type LabelledRule,
  type NamespaceRules,
  type PolicyRules,
  SINGLETON_RESOURCES,
  type SingletonResource,
} from "./rules.js";
export { TokenAuthorizer, type TokenAuthorizerOptions } from "./token-authorizer.js";
