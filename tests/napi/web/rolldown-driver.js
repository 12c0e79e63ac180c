// Bundles with rolldown's binding directly (rolldown's own JavaScript is made for Node): the
// options rolldown 1.3.2's rolldown({ input, cwd }).generate({ format: 'esm' }) gives its binding.
// Returns [[fileName, code], ...] sorted by file name.
export async function bundleProject(binding, cwd, input) {
  const bundler = new binding.BindingBundler();
  try {
    const result = await bundler.generate({
      inputOptions: {
        input: [{ import: input }],
        plugins: [],
        cwd,
        resolve: { yarnPnp: false },
        logLevel: 0,
        onLog: () => {},
        treeshake: { moduleSideEffects: true },
        experimental: { chunkModulesOrder: 1 },
        deferSyncScanData: () => [],
        invalidateJsSideCache: () => {},
      },
      outputOptions: { format: 'es', plugins: [] },
    });
    if (result.isBindingErrors) throw new Error(`rolldown: ${result.errors.map((e) => e.message ?? JSON.stringify(e)).join('\n')}`);
    return result.chunks.map((c) => [c.getFileName(), c.getCode()]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  } finally {
    await bundler.close();
  }
}
