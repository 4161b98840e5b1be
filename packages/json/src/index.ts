export { JsonSyntaxError, type JsonValue, readJson } from "./read.js";
export { writeJson } from "./write.js";
