import { HclParseError, type HclPosition } from "./error.js";

/** The text being parsed, with offset → line/column mapping computed once. */
export class Source {
  readonly text: string;
  private readonly lineStarts: number[];

  constructor(text: string) {
    this.text = text;
    this.lineStarts = [0];
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.lineStarts.push(i + 1);
  }

  positionAt(offset: number): HclPosition {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - this.lineStarts[low]! + 1, offset };
  }

  fail(offset: number, reason: string): never {
    throw new HclParseError(this.positionAt(offset), reason);
  }
}

/** Shows a piece of source in an error message: quoted, and cut short when long. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}...` : text);
}
