/**
 * The machine a session ran on, and its load. The load average is sampled every few seconds for
 * the whole session (other work on a shared machine shows there), and a warning is raised when
 * it exceeds half the cores at any sample: the figures are then noisy, though ratios measured in
 * the same interleaved rounds stay comparable.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, platform, release, totalmem } from 'node:os';

export function machine() {
  return {
    cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown', memGiB: Math.round(totalmem() / 2 ** 30),
    platform: `${platform()} ${release()}`, node: process.versions.node, v8: process.versions.v8,
  };
}

/** Calls read() now, every `everyS` seconds and at stop(); stop() returns summarize(readings). */
function sampleEvery(everyS, read, summarize) {
  const samples = [read()];
  const timer = setInterval(() => samples.push(read()), everyS * 1000);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      samples.push(read());
      return summarize(samples);
    },
  };
}

/** Starts sampling; stop() returns { start, end, max, mean, everyS, samples }. */
export function sampleLoad(everyS = 5, read = () => loadavg()[0]) {
  return sampleEvery(everyS, read, (samples) => {
    const r = (x) => Math.round(x * 100) / 100;
    return {
      start: samples[0], end: samples[samples.length - 1], max: Math.max(...samples),
      mean: r(samples.reduce((a, b) => a + b, 0) / samples.length), everyS, samples: samples.map(r),
    };
  });
}

/** The warning for a load summary, or undefined when the machine was quiet enough. */
export function loadWarning(load, cores) {
  if (load.max <= cores * 0.5) return undefined;
  return `machine load was high: load average up to ${load.max.toFixed(2)} (mean ${load.mean.toFixed(2)}) on ${cores} cores; `
    + 'other work shared the CPUs, so absolute figures are noisy (ratios from the same interleaved rounds less so)';
}

/** The cumulative CPU times of /proc/stat's first line, in ticks: { total, steal }; undefined where there is none. */
export function readCpuTimes(text) {
  if (text === undefined) {
    try {
      text = readFileSync('/proc/stat', 'utf8');
    } catch {
      return undefined;
    }
  }
  const f = /^cpu\s+(.*)$/m.exec(text)?.[1].trim().split(/\s+/).map(Number);
  if (!f || f.length < 8 || f.some((x) => !Number.isFinite(x))) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is already in user).
  return { total: f.slice(0, 8).reduce((a, b) => a + b, 0), steal: f[7] };
}

/** Starts sampling steal; stop() returns { percent, maxPercent, everyS } (percent of all CPU time) or undefined. */
export function sampleSteal(everyS = 5, read = readCpuTimes) {
  return sampleEvery(everyS, read, (samples) => {
    if (samples.some((x) => !x)) return undefined; // no /proc/stat
    const share = (a, b) => (b.total > a.total ? (100 * (b.steal - a.steal)) / (b.total - a.total) : 0);
    let maxPercent = 0;
    for (let i = 1; i < samples.length; i++) maxPercent = Math.max(maxPercent, share(samples[i - 1], samples[i]));
    const r = (x) => Math.round(x * 10) / 10;
    return { percent: r(share(samples[0], samples[samples.length - 1])), maxPercent: r(maxPercent), everyS };
  });
}

/** The warning for a steal summary, or undefined below 5%. */
export function stealWarning(steal) {
  if (!steal || steal.percent <= 5) return undefined;
  return `the hypervisor ran other work on this machine's CPUs for ${steal.percent}% of the CPU time (steal; up to ${steal.maxPercent}% `
    + `in a ${steal.everyS}-s interval): runs that keep every CPU busy (T >= cores) lose the most, so thread-scaling ratios are low`;
}
