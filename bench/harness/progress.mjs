/**
 * The progress display. On a terminal: one status line at the bottom ("[2/5] math · T=2 ·
 * 1:23"), redrawn every half second, with log lines printed above it. Elsewhere (CI, a pipe):
 * plain log lines prefixed with the elapsed time. Everything goes to stderr, so stdout holds
 * only the report.
 */

const clock = (s) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

export function createProgress({ total, stream = process.stderr, tty = Boolean(stream.isTTY) && !process.env.CI } = {}) {
  const t0 = Date.now();
  let index = 0, label = '', detail = '', timer;
  const elapsed = () => clock((Date.now() - t0) / 1000);
  const statusLine = () => `[${index}/${total}] ${label}${detail ? ` · ${detail}` : ''} · ${elapsed()}`;
  const clear = () => { if (tty) stream.write('\r\x1b[2K'); };
  const draw = () => { if (tty) stream.write(`\r\x1b[2K${statusLine().slice(0, (stream.columns || 100) - 1)}`); };
  if (tty) { timer = setInterval(draw, 500); timer.unref(); }
  return {
    /** A new experiment starts. */
    step(name) { index++; label = name; detail = ''; if (!tty) stream.write(`[${elapsed()}] [${index}/${total}] ${name}\n`); draw(); },
    /** A message from inside the experiment: becomes the detail of the status line, and a log line. */
    log(message) {
      const m = String(message).trim();
      if (!m) return;
      detail = m.replace(/^FAILED .*/, detail);
      clear();
      stream.write(`[${elapsed()}] ${String(message).replace(/^\s+/, '  ')}\n`);
      draw();
    },
    done() { if (timer) clearInterval(timer); clear(); },
  };
}
