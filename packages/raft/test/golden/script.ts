/**
 * The scenario file format: blocks separated by blank lines, each
 *
 *   # comments (kept as they are when the file is rewritten)
 *   command arg arg key=value key=(a,b)
 *   ----
 *   expected output, any number of non-blank lines
 *
 * Output never holds a blank line, so a blank line always ends a block.
 */
export interface Block {
  comments: string[];
  command: string;
  /** 1-based line of the command, for error messages. */
  line: number;
  expected: string[];
}

export const SEPARATOR = "----";

export function parseScript(text: string, file: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  let comments: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const l = lines[i]!;
    if (l.trim() === "") {
      // A blank line inside a run of comments is kept (it separates a file's header from the first block).
      if (comments.length > 0) comments.push("");
      i++;
      continue;
    }
    if (l.startsWith("#")) {
      comments.push(l);
      i++;
      continue;
    }
    const line = i + 1;
    if (lines[i + 1] !== SEPARATOR)
      throw new Error(`${file}:${line}: "${l}" is not followed by ${SEPARATOR}`);
    i += 2;
    const expected: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== "") expected.push(lines[i++]!);
    blocks.push({ comments, command: l, line, expected });
    comments = [];
  }
  if (comments.some((c) => c !== "")) throw new Error(`${file}: comments after the last command`);
  return blocks;
}

/** The file with each block's expected output replaced by `actual` (same order as the blocks). */
export function renderScript(blocks: Block[], actual: string[][]): string {
  return blocks
    .map((b, k) => [...b.comments, b.command, SEPARATOR, ...actual[k]!].join("\n"))
    .join("\n\n")
    .concat("\n");
}

export interface Command {
  name: string;
  /** Positional arguments, in order. */
  args: string[];
  /** key=value options; a value written (a,b,c) is a list. */
  opts: Map<string, string | string[]>;
}

export function parseCommand(line: string): Command {
  const [name, ...rest] = line.trim().split(/\s+/);
  const args: string[] = [];
  const opts = new Map<string, string | string[]>();
  for (const tok of rest) {
    const eq = tok.indexOf("=");
    if (eq <= 0) {
      args.push(tok);
      continue;
    }
    const key = tok.slice(0, eq);
    const value = tok.slice(eq + 1);
    const m = /^\((.*)\)$/.exec(value);
    opts.set(key, m ? m[1]!.split(",").filter((s) => s !== "") : value);
  }
  return { name: name!, args, opts };
}
