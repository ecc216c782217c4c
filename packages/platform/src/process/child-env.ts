/**
 * The environment a child process gets: PATH and the locale, TMPDIR when this process has one — and nothing else
 * unless the caller names it. Never this process's environment: it holds NATS_USER/NATS_PASSWORD/NATS_URL and the
 * service-secret digest, and the children of the scanners (Chromium, ffmpeg, ffprobe) handle hostile input; a child
 * that is compromised must find no credential in its own /proc/<pid>/environ.
 */
export const DEFAULT_CHILD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export function childEnv(named: Record<string, string | undefined> = {}, from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {
    PATH: from.PATH || DEFAULT_CHILD_PATH,
    // UTF-8 text (file names, ffmpeg's metadata output) whatever this process's locale is.
    LANG: from.LANG || "C.UTF-8",
  };
  // Where the child writes scratch files (Chromium's shared memory under --disable-dev-shm-usage): the operator's choice.
  if (from.TMPDIR) env.TMPDIR = from.TMPDIR;
  for (const [k, v] of Object.entries(named)) if (v !== undefined) env[k] = v;
  return env;
}
