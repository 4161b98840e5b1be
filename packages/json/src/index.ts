export { JsonSyntaxError, type JsonValue, readJson } from "./read.js";
export { type MemberFilter, type MemberRule, writeJson } from "./write.js";
