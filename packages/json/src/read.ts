/**
 * A JSON reader that keeps integers beyond 2^53 exact: such literals come back as bigint, every other
 * number as a JS number. Consul's Go clients send uint64 fields (Flags, indexes) that a plain JSON.parse
 * would silently round. Objects have a null prototype so a `__proto__` key is just a key.
 */

export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

export class JsonSyntaxError extends Error {
  constructor(reason: string, position: number) {
    super(`${reason} at offset ${position}`);
    this.name = "JsonSyntaxError";
  }
}

/** Nesting deeper than this is refused rather than risking the stack. */
const MAX_DEPTH = 256;

export function readJson(text: string): JsonValue {
  const reader = new Reader(text);
  reader.skipSpace();
  const value = reader.value(0);
  reader.skipSpace();
  if (reader.pos !== text.length) throw new JsonSyntaxError("unexpected trailing data", reader.pos);
  return value;
}

const NUMBER_RE = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

class Reader {
  pos = 0;
  constructor(private readonly text: string) {}

  skipSpace(): void {
    const t = this.text;
    let p = this.pos;
    while (p < t.length) {
      const c = t.charCodeAt(p);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      p++;
    }
    this.pos = p;
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) throw new JsonSyntaxError("nesting too deep", this.pos);
    const c = this.text[this.pos];
    switch (c) {
      case "{":
        return this.object(depth);
      case "[":
        return this.array(depth);
      case '"':
        return this.string();
      case "t":
        return this.literal("true", true);
      case "f":
        return this.literal("false", false);
      case "n":
        return this.literal("null", null);
      default:
        if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
        throw new JsonSyntaxError(
          c === undefined ? "unexpected end of input" : `unexpected '${c}'`,
          this.pos,
        );
    }
  }

  private literal<T extends JsonValue>(word: string, result: T): T {
    if (!this.text.startsWith(word, this.pos)) throw new JsonSyntaxError("invalid literal", this.pos);
    this.pos += word.length;
    return result;
  }

  private number(): number | bigint {
    NUMBER_RE.lastIndex = this.pos;
    const m = NUMBER_RE.exec(this.text);
    if (m === null) throw new JsonSyntaxError("invalid number", this.pos);
    const literal = m[0];
    this.pos += literal.length;
    const n = Number(literal);
    if (m[1] === undefined && m[2] === undefined && !Number.isSafeInteger(n)) return BigInt(literal);
    return n;
  }

  private string(): string {
    const t = this.text;
    const start = ++this.pos;
    // Fast path: no escapes, the common case for keys and base64 values.
    let p = start;
    while (p < t.length) {
      const c = t.charCodeAt(p);
      if (c === 0x22) {
        this.pos = p + 1;
        return t.slice(start, p);
      }
      if (c === 0x5c) break;
      if (c < 0x20) throw new JsonSyntaxError("control character in string", p);
      p++;
    }
    let out = t.slice(start, p);
    while (p < t.length) {
      const c = t.charCodeAt(p);
      if (c === 0x22) {
        this.pos = p + 1;
        return out;
      }
      if (c < 0x20) throw new JsonSyntaxError("control character in string", p);
      if (c !== 0x5c) {
        const runStart = p;
        while (p < t.length) {
          const d = t.charCodeAt(p);
          if (d === 0x22 || d === 0x5c || d < 0x20) break;
          p++;
        }
        out += t.slice(runStart, p);
        continue;
      }
      const e = t[p + 1];
      p += 2;
      switch (e) {
        case '"':
        case "\\":
        case "/":
          out += e;
          break;
        case "b":
          out += "\b";
          break;
        case "f":
          out += "\f";
          break;
        case "n":
          out += "\n";
          break;
        case "r":
          out += "\r";
          break;
        case "t":
          out += "\t";
          break;
        case "u": {
          const hex = t.slice(p, p + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new JsonSyntaxError("invalid unicode escape", p);
          out += String.fromCharCode(Number.parseInt(hex, 16));
          p += 4;
          break;
        }
        default:
          throw new JsonSyntaxError("invalid escape", p - 1);
      }
    }
    throw new JsonSyntaxError("unterminated string", start - 1);
  }

  private array(depth: number): JsonValue[] {
    this.pos++;
    const out: JsonValue[] = [];
    this.skipSpace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      out.push(this.value(depth + 1));
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === "]") return out;
      if (c !== ",") throw new JsonSyntaxError("expected ',' or ']'", this.pos - 1);
    }
  }

  private object(depth: number): { [key: string]: JsonValue } {
    this.pos++;
    const out: { [key: string]: JsonValue } = Object.create(null);
    this.skipSpace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') throw new JsonSyntaxError("expected object key", this.pos);
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos++] !== ":") throw new JsonSyntaxError("expected ':'", this.pos - 1);
      this.skipSpace();
      out[key] = this.value(depth + 1);
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === "}") return out;
      if (c !== ",") throw new JsonSyntaxError("expected ',' or '}'", this.pos - 1);
    }
  }
}
