/**
 * The machine a session ran on, and its load. The load average is sampled every few seconds for
 * the whole session (other work on a shared machine shows there), and a warning is raised when
 * it exceeds half the cores at any sample: the figures are then noisy, though ratios measured in
 * the same interleaved rounds stay comparable.
 */
import { availableParallelism, cpus, loadavg, platform, release, totalmem } from 'node:os';

export function machine() {
  return {
    cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown', memGiB: Math.round(totalmem() / 2 ** 30),
    platform: `${platform()} ${release()}`, node: process.versions.node, v8: process.versions.v8,
  };
}

/** Starts sampling; stop() returns { start, end, max, mean, everyS, samples }. */
export function sampleLoad(everyS = 5, read = () => loadavg()[0]) {
  const samples = [read()];
  const timer = setInterval(() => samples.push(read()), everyS * 1000);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      samples.push(read());
      const r = (x) => Math.round(x * 100) / 100;
      return {
        start: samples[0], end: samples[samples.length - 1], max: Math.max(...samples),
        mean: r(samples.reduce((a, b) => a + b, 0) / samples.length), everyS, samples: samples.map(r),
      };
    },
  };
}

/** The warning for a load summary, or undefined when the machine was quiet enough. */
export function loadWarning(load, cores) {
  if (load.max <= cores * 0.5) return undefined;
  return `machine load was high: load average up to ${load.max.toFixed(2)} (mean ${load.mean.toFixed(2)}) on ${cores} cores; `
    + 'other work shared the CPUs, so absolute figures are noisy (ratios from the same interleaved rounds less so)';
}
