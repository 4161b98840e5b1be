import type { MonitorLevel } from "@cairn/api";
import pino, { type Logger } from "pino";
import type { LogLevel } from "../config/index.js";
import { formatJsonLogLine, formatLogLine } from "../logger.js";

const LEVEL_VALUES: Readonly<Record<LogLevel, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
};

interface Subscriber {
  level: number;
  json: boolean;
  onLine: (line: string) => void;
}

/**
 * The agent's logger with a tee: every line goes to stdout at the configured level (Consul's text lines, or
 * its JSON lines with log_json) and to each `/v1/agent/monitor` subscriber at the level it asked for. While a monitor
 * wants more detail than the configured level, the loggers (the root and every child, tracked as they are
 * made) log at that level and stdout still gets only what it was configured for.
 */
export class LogHub {
  readonly logger: Logger;
  private baseLevel: number;
  private readonly subscribers = new Set<Subscriber>();
  private readonly loggers = new Set<WeakRef<Logger>>();

  constructor(
    level: LogLevel,
    private readonly json: boolean,
    private readonly out: { write(text: string): unknown } = process.stdout,
  ) {
    this.baseLevel = LEVEL_VALUES[level];
    this.logger = pino(
      { level, base: undefined, onChild: (child) => this.loggers.add(new WeakRef(child)) },
      { write: (line: string) => this.write(line) },
    );
    this.loggers.add(new WeakRef(this.logger));
  }

  /** `log_level` changed (reload). */
  setLevel(level: LogLevel): void {
    this.baseLevel = LEVEL_VALUES[level];
    this.applyLevel();
  }

  /** Calls `onLine` with each line at `level` or above, as text or JSON, until the returned function runs. */
  subscribe(level: MonitorLevel, json: boolean, onLine: (line: string) => void): () => void {
    const subscriber: Subscriber = { level: LEVEL_VALUES[level], json, onLine };
    this.subscribers.add(subscriber);
    this.applyLevel();
    return () => {
      if (this.subscribers.delete(subscriber)) this.applyLevel();
    };
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  private write(line: string): void {
    const level = levelOf(line);
    let text: string | undefined;
    let json: string | undefined;
    const render = (asJson: boolean): string => {
      if (asJson) {
        json ??= formatJsonLogLine(line);
        return json;
      }
      text ??= formatLogLine(line);
      return text;
    };
    if (level >= this.baseLevel) this.out.write(render(this.json));
    for (const s of this.subscribers) if (level >= s.level) s.onLine(render(s.json));
  }

  private applyLevel(): void {
    let lowest = this.baseLevel;
    for (const s of this.subscribers) lowest = Math.min(lowest, s.level);
    const name = (Object.keys(LEVEL_VALUES) as LogLevel[]).find((k) => LEVEL_VALUES[k] === lowest) ?? "info";
    for (const ref of this.loggers) {
      const logger = ref.deref();
      if (logger === undefined) this.loggers.delete(ref);
      else if (logger.level !== name) logger.level = name;
    }
  }
}

/** The numeric level of a pino JSON line, read without parsing the whole line. */
function levelOf(line: string): number {
  const m = /"level":(\d+)/.exec(line);
  return m ? Number(m[1]) : LEVEL_VALUES.info;
}
