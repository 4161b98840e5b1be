// JSON that keeps uint64 exact: integers beyond 2^53 parse as bigint (KV Flags, indexes), and bigints
// print as plain numbers. JSON.parse would round them.
export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

export class JsonSyntaxError extends Error {}

export function parseJson(text: string): JsonValue {
  const parser = new Parser(text);
  parser.skipSpace();
  const value = parser.value();
  parser.skipSpace();
  if (parser.pos !== text.length) parser.fail("unexpected data after the top-level value");
  return value;
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

class Parser {
  pos = 0;
  constructor(private readonly text: string) {}

  fail(reason: string): never {
    throw new JsonSyntaxError(`invalid JSON at offset ${this.pos}: ${reason}`);
  }

  skipSpace(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.pos++;
    }
  }

  value(): JsonValue {
    const c = this.text[this.pos];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    for (const [word, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    return this.fail(
      c === undefined ? "unexpected end of input" : `unexpected character ${JSON.stringify(c)}`,
    );
  }

  private object(): { [key: string]: JsonValue } {
    const out: { [key: string]: JsonValue } = {};
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail("expected a string key");
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos] !== ":") this.fail("expected ':'");
      this.pos++;
      this.skipSpace();
      Object.defineProperty(out, key, {
        value: this.value(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === "}") return out;
      if (c !== ",") this.fail("expected ',' or '}'");
    }
  }

  private array(): JsonValue[] {
    const out: JsonValue[] = [];
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      out.push(this.value());
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === "]") return out;
      if (c !== ",") this.fail("expected ',' or ']'");
    }
  }

  private number(): number | bigint {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null) return this.fail("invalid number");
    this.pos += match[0].length;
    if (match[1] === undefined && match[2] === undefined) {
      const n = Number(match[0]);
      return Number.isSafeInteger(n) ? n : BigInt(match[0]);
    }
    return Number(match[0]);
  }

  private string(): string {
    this.pos++;
    let out = "";
    for (;;) {
      const start = this.pos;
      while (this.pos < this.text.length) {
        const code = this.text.charCodeAt(this.pos);
        if (code === 0x22 || code === 0x5c || code < 0x20) break;
        this.pos++;
      }
      out += this.text.slice(start, this.pos);
      const c = this.text[this.pos];
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c !== "\\") this.fail(c === undefined ? "unterminated string" : "control character in string");
      const escaped = this.text[this.pos + 1];
      this.pos += 2;
      if (escaped === "u") {
        const hex = this.text.slice(this.pos, this.pos + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("invalid \\u escape");
        out += String.fromCharCode(Number.parseInt(hex, 16));
        this.pos += 4;
        continue;
      }
      const decoded = ESCAPES[escaped ?? ""];
      if (decoded === undefined) this.fail("invalid escape");
      out += decoded;
    }
  }
}

const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/**
 * Go's json.MarshalIndent(v, "", indent): keys in the given order, `<`, `>`, `&`, U+2028 and U+2029
 * escaped as Go does by default, so `cairn kv export` prints what `consul kv export` prints.
 */
export function stringifyGo(value: JsonValue, indent = "\t", depth = 0): string {
  if (value === null) return "null";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "string") return quoteGo(value);
  const pad = indent.repeat(depth + 1);
  const end = indent.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => pad + stringifyGo(v, indent, depth + 1)).join(",\n")}\n${end}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${pad}${quoteGo(k)}: ${stringifyGo(v, indent, depth + 1)}`).join(",\n")}\n${end}}`;
}

const GO_HTML_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

function quoteGo(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => GO_HTML_ESCAPES[c]!);
}

/** Field lookup as Go's decoder does it: an exact match first, then a case-insensitive one. */
export function field(obj: { [key: string]: JsonValue }, name: string): JsonValue | undefined {
  if (Object.hasOwn(obj, name)) return obj[name];
  const lower = name.toLowerCase();
  for (const key of Object.keys(obj)) if (key.toLowerCase() === lower) return obj[key];
  return undefined;
}

export function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A uint64 field (Flags, indexes) as an exact bigint; 0 when absent or not an unsigned integer. */
export function asUint64(v: JsonValue | undefined): bigint {
  if (typeof v === "bigint") return v >= 0n ? v : 0n;
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return BigInt(v);
  return 0n;
}

export function asString(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}
