import pino, { type DestinationStream, type Logger } from "pino";
import type { LogLevel } from "./config/index.js";

const LEVEL_NAMES: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};
const OMIT = new Set(["level", "time", "msg", "component"]);

/**
 * One pino line rendered as Consul's text log line:
 * `2024-05-01T10:00:00.000Z [INFO]  agent.raft: raft leadership changed: leader=... role=leader`.
 */
export function formatLogLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith("\n") ? line : `${line}\n`;
  }
  const time = typeof record.time === "number" ? new Date(record.time).toISOString() : "";
  const level = `[${LEVEL_NAMES[record.level as number] ?? "INFO"}]`.padEnd(7);
  const component = typeof record.component === "string" ? `agent.${record.component}: ` : "agent: ";
  const fields = Object.entries(record)
    .filter(([k]) => !OMIT.has(k))
    .map(([k, v]) => `${k}=${typeof v === "string" ? quoteIfNeeded(v) : JSON.stringify(v)}`);
  const msg = typeof record.msg === "string" ? record.msg : "";
  return `${time} ${level} ${component}${msg}${fields.length > 0 ? `: ${fields.join(" ")}` : ""}\n`;
}

/**
 * One pino line as Consul's JSON log line (hclog's JSON shape, as `-log-json` and `/v1/agent/monitor?logjson`
 * give it): `{"@level":"info","@message":"...","@module":"agent.raft","@timestamp":"...000Z",...fields}`.
 */
export function formatJsonLogLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith("\n") ? line : `${line}\n`;
  }
  // hclog writes microseconds; JavaScript's clock has milliseconds.
  const time = new Date(typeof record.time === "number" ? record.time : Date.now()).toISOString();
  const out: Record<string, unknown> = {
    "@level": (LEVEL_NAMES[record.level as number] ?? "INFO").toLowerCase(),
    "@message": typeof record.msg === "string" ? record.msg : "",
    "@module": typeof record.component === "string" ? `agent.${record.component}` : "agent",
    "@timestamp": time.replace(/Z$/, "000Z"),
  };
  for (const [k, v] of Object.entries(record)) if (!OMIT.has(k)) out[k] = v;
  return `${JSON.stringify(out)}\n`;
}

function quoteIfNeeded(v: string): string {
  return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
}

/** The agent's logger: Consul's JSON lines with `log_json`, its text lines otherwise; written synchronously. */
export function createLogger(
  level: LogLevel,
  json: boolean,
  out: NodeJS.WritableStream = process.stdout,
): Logger {
  const format = json ? formatJsonLogLine : formatLogLine;
  const dest: DestinationStream = { write: (line: string) => out.write(format(line)) };
  return pino({ level, base: undefined }, dest);
}
