/* spindle-fs.h: the in-program filesystem of spindle for wasm32-wasip1-threads.
 *
 * Linking libspindle-fs.a (or libspindle.a, which adds spindle-alloc) is all a program needs:
 * open/fopen/stat/readdir/... on the memory mounts (default /tmp) go to a filesystem in the
 * program's shared memory, reachable by every thread; other paths and stdio go to the host.
 * This header only declares the optional extras.
 *
 * Mounts at start-up: the environment variable SPINDLE_FS_MOUNTS (comma-separated absolute guest
 * paths, e.g. "/tmp,/data"; empty: none). Unset means "/tmp", unless the host preopens /tmp.
 * spindle's fds are numbered from SPINDLE_FS_FD_BASE up; smaller fds belong to the host.
 */
#ifndef SPINDLE_FS_H
#define SPINDLE_FS_H

#ifdef __cplusplus
extern "C" {
#endif

/* First fd number of spindle's in-program files (host fds are below it). */
#define SPINDLE_FS_FD_BASE 0x40000000

/* Mounts an empty memory directory at `path` (absolute, e.g. "/data") and makes it a preopen,
 * so open("/data/x", ...) works from now on. Returns 0, or an errno value (EEXIST if it exists
 * already). */
int spindle_fs_mount(const char *path);

/* Tells the filesystem's locks which threads may block in memory.atomic.wait32: `hook` returns
 * non-zero if the calling thread may (a browser main thread may not; it spins instead).
 * NULL: every thread may (the default). */
void spindle_fs_set_can_wait(int (*hook)(void));

#ifdef __cplusplus
}
#endif

#endif
