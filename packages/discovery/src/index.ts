export { compileChain } from "./chain/compile.js";
export {
  ChainCompileError,
  type ChainDuration,
  type ChainEntries,
  type ChainNode,
  type ChainOverrides,
  type ChainTarget,
  type CompiledChain,
  type CompileRequest,
  type ConfigEntryFields,
  type ResolverNode,
  type RouterNode,
  type SplitterNode,
} from "./chain/types.js";
export {
  type Coordinate,
  coordinateDistance,
  coordinateIsValid,
  coordinatesCompatible,
  sortByDistance,
} from "./coordinate.js";
export type {
  FilterExpression,
  LogicalExpression,
  MatchExpression,
  MatchOperator,
  MatchValue,
  NotExpression,
} from "./filter/ast.js";
export { MATCH_OPERATORS } from "./filter/ast.js";
export { compileFilter, type FilterPredicate } from "./filter/compile.js";
export { filterSchemas } from "./filter/consul-schemas.js";
export { FilterError } from "./filter/errors.js";
export { MAX_FILTER_NESTING, parseFilter } from "./filter/parse.js";
export {
  describeSchema,
  type FieldType,
  type FilterSchema,
  field,
  operatorsFor,
  type SelectorDescription,
} from "./filter/schema.js";
export {
  healthy,
  matchesQuery,
  metaSatisfies,
  type QueryCandidate,
  type QueryCheck,
  type QueryOrdering,
  selectQueryNodes,
  shuffled,
  tagsSatisfy,
} from "./query/execute.js";
export { planFailover } from "./query/failover.js";
export { HilError, parseHil } from "./query/hil.js";
export { type CompiledTemplate, compileTemplate, renderTemplate, TemplateError } from "./query/template.js";
export {
  type PreparedQueryDefinition,
  type QueryFailover,
  type QuerySource,
  type QueryTemplateOptions,
  type ServiceQuery,
  TEMPLATE_TYPE_NAME_PREFIX_MATCH,
} from "./query/types.js";
