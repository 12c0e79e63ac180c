/**
 * The Node platform's host-directory driver (`HostFsDriver`): materializes host files and
 * directories of the shared fd table on the calling thread, and closes OS fds. Only Node imports
 * this (platform/node/index.ts); browsers have no host directories.
 */
import { closeSync } from 'node:fs';
import { HostDirectory, hostRoot } from './host-dir.js';
import { readTree, writeFileAtomic } from './host-tree.js';
import { HostDir, HostFile } from './host-file.js';
import type { HostFsDriver, MountSpec } from '../../fs/drivers.js';

export const nodeHostFs: HostFsDriver = {
  file: (table, fd, gen) => new HostFile(table, fd, gen),
  dir: (table, fd, gen, mounts: readonly MountSpec[]) =>
    new HostDir(table, fd, gen, mounts, (t, dirFd, dirGen, path, mount) => new HostDirectory(t, dirFd, dirGen, path, mount, mounts[mount]!)),
  closeOsFd: (osFd) => {
    try {
      closeSync(osFd);
    } catch {
      // Already closed by the OS (cannot happen through the table: each entry is released once).
    }
  },
  root: hostRoot,
  readTree,
  writeFileAtomic,
};
