/** The text Go's syscall errors print, for Node's error codes: check outputs read as Consul's do. */
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by peer",
  EACCES: "permission denied",
  EHOSTUNREACH: "no route to host",
  ENETUNREACH: "network is unreachable",
  ETIMEDOUT: "i/o timeout",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "temporary failure in name resolution",
};

/** A Node error as Go would word it (`connection refused`), else its own message. */
export function errnoText(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  return (code !== undefined && ERRNO_TEXT[code]) || err.message;
}
