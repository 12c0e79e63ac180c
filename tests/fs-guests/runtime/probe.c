/* The runtime filesystem's differential probe: built WITHOUT the in-program FS, run with one host
 * directory preopened as /d (empty at start), it prints what the runtime answers to each WASI
 * call (errno values, fdstat rights, filestat fields that do not depend on the host, readdir
 * names and types) so the output of spindle --dir and wasmtime --dir can be compared line by line.
 * The test creates two symlinks in the directory beforehand, both leading out of it: "hostabs"
 * (-> /etc/passwd) and "hostup" (-> ../../../../../../etc/passwd).
 * Exits 0 after printing "probe done". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wasi/api.h>

static __wasi_fd_t dirfd_ = 0;

#define SHOW(label, call) printf("%s: %d\n", label, (int)(call))
#define R_ALL ((__wasi_rights_t)0x1fffffff)
/* what wasi-libc asks for a directory: everything but reading, writing and seeking it */
#define R_DIR ((__wasi_rights_t)0x1fffffff & ~(__wasi_rights_t)(__WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE | __WASI_RIGHTS_FD_SEEK | __WASI_RIGHTS_FD_TELL))

static __wasi_errno_t openat_(const char *p, int lookup, int oflags, __wasi_rights_t base, int fdflags, __wasi_fd_t *out) {
  return __wasi_path_open(dirfd_, lookup, p, oflags, base, R_ALL, fdflags, out);
}

static void fdstat(const char *label, __wasi_fd_t fd) {
  __wasi_fdstat_t st;
  memset(&st, 0, sizeof st);
  __wasi_errno_t e = __wasi_fd_fdstat_get(fd, &st);
  printf("%s fdstat: errno %d type %d flags %d base %llx inh %llx\n", label, e, st.fs_filetype, st.fs_flags,
         (unsigned long long)st.fs_rights_base, (unsigned long long)st.fs_rights_inheriting);
}

static void filestat(const char *label, int lookup, const char *p) {
  __wasi_filestat_t st;
  memset(&st, 0, sizeof st);
  __wasi_errno_t e = __wasi_path_filestat_get(dirfd_, lookup, p, &st);
  printf("%s filestat: errno %d type %d nlink %llu size %llu\n", label, e, st.filetype,
         (unsigned long long)st.nlink, (unsigned long long)st.size);
}

static void preopens(void) {
  for (__wasi_fd_t fd = 3; fd < 8; fd++) {
    __wasi_prestat_t pre;
    __wasi_errno_t e = __wasi_fd_prestat_get(fd, &pre);
    if (e != 0) break; /* wasi-libc stops at the first fd that is not a preopen */
    char name[64] = {0};
    if (__wasi_fd_prestat_dir_name(fd, (uint8_t *)name, pre.u.dir.pr_name_len) != 0) printf("dir_name failed\n");
    printf("prestat %u: %s\n", fd, name);
    if (!dirfd_) dirfd_ = fd;
  }
}

static void listing(const char *label, __wasi_fd_t fd) {
  char buf[4096];
  __wasi_size_t used = 0;
  __wasi_errno_t e = __wasi_fd_readdir(fd, (uint8_t *)buf, sizeof buf, 0, &used);
  printf("%s readdir: errno %d\n", label, e);
  /* print names with types and whether cookies are increasing; sorted by name */
  char names[64][64];
  int n = 0;
  __wasi_dircookie_t last = 0;
  int ordered = 1;
  for (size_t off = 0; off + sizeof(__wasi_dirent_t) <= used && n < 64;) {
    __wasi_dirent_t d;
    memcpy(&d, buf + off, sizeof d);
    off += sizeof d;
    if (off + d.d_namlen > used) break;
    snprintf(names[n++], 64, "%.*s/%d", (int)d.d_namlen, buf + off, d.d_type);
    ordered &= d.d_next > last;
    last = d.d_next;
    off += d.d_namlen;
  }
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (strcmp(names[i], names[j]) > 0) { char t[64]; strcpy(t, names[i]); strcpy(names[i], names[j]); strcpy(names[j], t); }
  for (int i = 0; i < n; i++) printf("  %s\n", names[i]);
  printf("  cookies increasing: %d\n", ordered);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* a trap must not lose the lines before it */
  preopens();
  if (!dirfd_) { printf("no preopen\n"); return 1; }
  fdstat("preopen", dirfd_);
  __wasi_fd_t f, g, d;
  SHOW("create f", openat_("f", 0, __WASI_OFLAGS_CREAT, __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE, 0, &f));
  fdstat("f rw", f);
  __wasi_ciovec_t iov = {.buf = (const uint8_t *)"hello", .buf_len = 5};
  __wasi_size_t n;
  SHOW("write f", __wasi_fd_write(f, &iov, 1, &n));
  SHOW("write f n", n);
  __wasi_filesize_t pos;
  SHOW("tell f", __wasi_fd_tell(f, &pos));
  SHOW("tell f pos", pos);
  SHOW("seek f -1", __wasi_fd_seek(f, -1, __WASI_WHENCE_SET, &pos));
  SHOW("seek f end", __wasi_fd_seek(f, -2, __WASI_WHENCE_END, &pos));
  SHOW("seek f end pos", pos);
  char rb[16] = {0};
  __wasi_iovec_t riov = {.buf = (uint8_t *)rb, .buf_len = sizeof rb};
  SHOW("read f", __wasi_fd_read(f, &riov, 1, &n));
  printf("read f got: %d %.*s\n", (int)n, (int)n, rb);
  SHOW("pwrite f", __wasi_fd_pwrite(f, &iov, 1, 10, &n));
  SHOW("set size", __wasi_fd_filestat_set_size(f, 3));
  __wasi_filestat_t st;
  SHOW("fstat f", __wasi_fd_filestat_get(f, &st));
  printf("fstat f: type %d nlink %llu size %llu\n", st.filetype, (unsigned long long)st.nlink, (unsigned long long)st.size);
  SHOW("allocate f", __wasi_fd_allocate(f, 0, 1)); /* spindle 0, wasmtime ENOTSUP: a known difference */
  SHOW("advise f", __wasi_fd_advise(f, 0, 0, __WASI_ADVICE_NORMAL));
  SHOW("sync f", __wasi_fd_sync(f));
  SHOW("datasync f", __wasi_fd_datasync(f));
  SHOW("set flags append", __wasi_fd_fdstat_set_flags(f, __WASI_FDFLAGS_APPEND));
  fdstat("f after append", f);
  SHOW("set flags nonblock", __wasi_fd_fdstat_set_flags(f, __WASI_FDFLAGS_NONBLOCK));
  SHOW("set rights less", __wasi_fd_fdstat_set_rights(f, __WASI_RIGHTS_FD_READ, 0));
  fdstat("f after rights", f);
  SHOW("readdir on file", __wasi_fd_readdir(f, (uint8_t *)rb, sizeof rb, 0, &n));
  SHOW("path_open on file fd", __wasi_path_open(f, 0, "x", 0, R_ALL, R_ALL, 0, &g));
  SHOW("prestat on file", __wasi_fd_prestat_get(f, &(__wasi_prestat_t){0}));
  SHOW("close f", __wasi_fd_close(f));
  SHOW("close f again", __wasi_fd_close(f));
  SHOW("write closed", __wasi_fd_write(f, &iov, 1, &n));

  SHOW("open ro", openat_("f", 0, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  fdstat("f ro", g);
  SHOW("write ro", __wasi_fd_write(g, &iov, 1, &n));
  SHOW("close ro", __wasi_fd_close(g));
  SHOW("open wo", openat_("f", 0, 0, __WASI_RIGHTS_FD_WRITE, 0, &g));
  fdstat("f wo", g);
  SHOW("read wo", __wasi_fd_read(g, &riov, 1, &n));
  SHOW("close wo", __wasi_fd_close(g));
  SHOW("open excl existing", openat_("f", 0, __WASI_OFLAGS_CREAT | __WASI_OFLAGS_EXCL, R_ALL, 0, &g));
  SHOW("open missing", openat_("missing", 0, 0, R_ALL, 0, &g));
  SHOW("open dir flag on file", openat_("f", 0, __WASI_OFLAGS_DIRECTORY, R_ALL, 0, &g));
  SHOW("open trailing slash file", openat_("f/", 0, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open through file", openat_("f/x", 0, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open ..", openat_("../x", 0, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open .. deep", openat_("a/../../x", 0, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open absolute", openat_("/etc/passwd", 0, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open empty", openat_("", 0, 0, __WASI_RIGHTS_FD_READ, 0, &g));

  SHOW("mkdir sub", __wasi_path_create_directory(dirfd_, "sub"));
  SHOW("mkdir sub again", __wasi_path_create_directory(dirfd_, "sub"));
  SHOW("mkdir ..", __wasi_path_create_directory(dirfd_, "../sub"));
  SHOW("open sub", openat_("sub", 0, __WASI_OFLAGS_DIRECTORY, R_DIR, 0, &d));
  fdstat("sub", d);
  SHOW("sub prestat", __wasi_fd_prestat_get(d, &(__wasi_prestat_t){0}));
  SHOW("create in sub", __wasi_path_open(d, 0, "inner", __WASI_OFLAGS_CREAT, R_ALL, R_ALL, 0, &g));
  SHOW("close inner", __wasi_fd_close(g));
  SHOW("open sub/.. from sub", __wasi_path_open(d, 0, "../f", 0, __WASI_RIGHTS_FD_READ, R_ALL, 0, &g));
  SHOW("close", __wasi_fd_close(g));
  SHOW("open sub ../.. from sub", __wasi_path_open(d, 0, "../../f", 0, __WASI_RIGHTS_FD_READ, R_ALL, 0, &g));
  SHOW("write dir", __wasi_fd_write(d, &iov, 1, &n));
  SHOW("read dir", __wasi_fd_read(d, &riov, 1, &n));
  SHOW("seek dir", __wasi_fd_seek(d, 0, __WASI_WHENCE_SET, &pos));
  SHOW("open dir for write", openat_("sub", 0, 0, __WASI_RIGHTS_FD_WRITE, 0, &g));
  listing("sub", d);
  SHOW("rmdir non-empty", __wasi_path_remove_directory(dirfd_, "sub"));
  SHOW("unlink dir", __wasi_path_unlink_file(dirfd_, "sub"));
  SHOW("rmdir file", __wasi_path_remove_directory(dirfd_, "f"));
  SHOW("rmdir .", __wasi_path_remove_directory(dirfd_, "."));
  SHOW("rename dir into itself", __wasi_path_rename(dirfd_, "sub", dirfd_, "sub/x"));
  SHOW("rename missing", __wasi_path_rename(dirfd_, "nope", dirfd_, "x"));
  SHOW("rename file over dir", __wasi_path_rename(dirfd_, "f", dirfd_, "sub"));

  SHOW("symlink rel", __wasi_path_symlink("f", dirfd_, "s"));
  SHOW("symlink abs", __wasi_path_symlink("/etc/passwd", dirfd_, "abs"));
  SHOW("symlink up", __wasi_path_symlink("../../etc/passwd", dirfd_, "up"));
  SHOW("symlink loop a", __wasi_path_symlink("lb", dirfd_, "la"));
  SHOW("symlink loop b", __wasi_path_symlink("la", dirfd_, "lb"));
  SHOW("symlink existing", __wasi_path_symlink("f", dirfd_, "f"));
  SHOW("symlink dir", __wasi_path_symlink("sub", dirfd_, "sd"));
  char lb[64];
  SHOW("readlink s", __wasi_path_readlink(dirfd_, "s", (uint8_t *)lb, sizeof lb, &n));
  printf("readlink s: %.*s\n", (int)n, lb);
  SHOW("readlink short", __wasi_path_readlink(dirfd_, "abs", (uint8_t *)lb, 4, &n));
  printf("readlink short: %d\n", (int)n);
  SHOW("readlink file", __wasi_path_readlink(dirfd_, "f", (uint8_t *)lb, sizeof lb, &n));
  SHOW("open via s", openat_("s", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("close", __wasi_fd_close(g));
  SHOW("open s nofollow", openat_("s", 0, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open abs follow", openat_("abs", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open up follow", openat_("up", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open loop", openat_("la", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open via sd", openat_("sd/inner", 0, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("close", __wasi_fd_close(g));
  SHOW("open abs/x", openat_("abs/x", 0, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open hostabs", openat_("hostabs", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open hostup", openat_("hostup", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open hostabs nofollow", openat_("hostabs", 0, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  filestat("hostabs follow", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, "hostabs");
  filestat("hostabs nofollow", 0, "hostabs");
  filestat("hostup follow", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, "hostup");
  SHOW("readlink hostabs", __wasi_path_readlink(dirfd_, "hostabs", (uint8_t *)lb, sizeof lb, &n));
  printf("readlink hostabs: %.*s\n", (int)n, lb);
  SHOW("create through hostabs", openat_("hostabs", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, __WASI_OFLAGS_CREAT, __WASI_RIGHTS_FD_WRITE, 0, &g));
  filestat("s follow", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, "s");
  filestat("s nofollow", 0, "s");
  filestat("abs follow", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, "abs");
  filestat("abs nofollow", 0, "abs");
  filestat("sub", 0, "sub");
  filestat("missing", 0, "missing");
  filestat("dot", 0, ".");
  filestat("dotdot", 0, "..");
  SHOW("link f g", __wasi_path_link(dirfd_, 0, "f", dirfd_, "g"));
  filestat("f linked", 0, "f");
  SHOW("link existing", __wasi_path_link(dirfd_, 0, "f", dirfd_, "g"));
  SHOW("link dir", __wasi_path_link(dirfd_, 0, "sub", dirfd_, "sub2"));
  SHOW("link escape", __wasi_path_link(dirfd_, 0, "f", dirfd_, "../g"));
  SHOW("set times", __wasi_path_filestat_set_times(dirfd_, 0, "f", 1000000000ull, 2000000000ull,
                                                    __WASI_FSTFLAGS_ATIM | __WASI_FSTFLAGS_MTIM));
  memset(&st, 0, sizeof st);
  SHOW("stat f", __wasi_path_filestat_get(dirfd_, 0, "f", &st));
  printf("times: %llu %llu\n", (unsigned long long)st.atim, (unsigned long long)st.mtim);
  SHOW("unlink g", __wasi_path_unlink_file(dirfd_, "g"));
  SHOW("unlink missing", __wasi_path_unlink_file(dirfd_, "g"));
  SHOW("unlink trailing slash", __wasi_path_unlink_file(dirfd_, "f/"));
  listing("root", dirfd_);
  SHOW("renumber to a closed fd", __wasi_fd_renumber(d, 9));
  SHOW("open f again", openat_("f", 0, 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("renumber", __wasi_fd_renumber(d, g));
  fdstat("renumbered", g);
  SHOW("renumber from closed", __wasi_fd_renumber(d, g));
  SHOW("close renumbered", __wasi_fd_close(g));
  SHOW("close old", __wasi_fd_close(d));
  /* (bad pointers, bad enum values: wasmtime's legacy wasip1 traps, spindle returns EFAULT/EINVAL;
   * the runtime tests check those apart) */
  printf("probe done\n");
  return 0;
}
