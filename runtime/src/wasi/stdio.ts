/**
 * fds 0, 1, 2: descriptors that forward to the host's stdin and output sinks.
 *
 * Answers follow wasmtime-wasi's preview1 adapter: stdin has only FD_READ, stdout/stderr only
 * FD_WRITE (reading 1/2 or writing 0 is EBADF); seek, tell, pread, pwrite are ESPIPE on the side
 * that has the stream (pread on stdin, pwrite on stdout/stderr) and EBADF on the other side; the
 * file-only operations (set flags, set size, sync, advise, ...) are EBADF; filestat is all zero
 * except the filetype.
 *
 * Filetype: wasmtime reports CHARACTER_DEVICE when the host fd is a terminal and UNKNOWN otherwise.
 * The host contract does not say, so the caller decides (`tty`, default true; a function is asked
 * at the first fdstat or filestat of that fd, as finding out can cost the host). wasi-libc's isatty()
 * is true exactly for CHARACTER_DEVICE without FD_SEEK/FD_TELL rights, and a tty makes C stdio
 * line-buffer stdout, so output shows up line by line (like a native program in a terminal).
 *
 * Thread rules: each instance has its own descriptors; all share the host's sinks, whose ordering
 * guarantees (one fd_write = one contiguous writeOutput) are the host's.
 */
import {
  ERRNO_IO,
  ERRNO_RANGE,
  ERRNO_SPIPE,
  FILETYPE_CHARACTER_DEVICE,
  FILETYPE_UNKNOWN,
  RIGHTS_FD_READ,
  RIGHTS_FD_WRITE,
} from './constants.js';
import { check, fail } from './errno.js';
import type { Descriptor, Fdstat, Filestat } from './fd-table.js';
import { DescriptorBase } from './fd-table.js';
import type { WasiHost } from './host.js';

/** Whether fds 0-2 are terminals: one answer for all, one per fd, or a function asked per fd when needed. */
export type StdioTty = boolean | readonly boolean[] | ((fd: number) => boolean);

/** The filetype a stdio fd reports, found out at its first use. */
class StdioFiletype {
  private value: number | undefined;
  constructor(private readonly tty: () => boolean) {}
  get(): number {
    return (this.value ??= this.tty() ? FILETYPE_CHARACTER_DEVICE : FILETYPE_UNKNOWN);
  }
}

function stdioFilestat(filetype: number): Filestat {
  return { dev: 0n, ino: 0n, filetype, nlink: 0n, size: 0n, atim: 0n, mtim: 0n, ctim: 0n };
}

/** fd 0: reads come from `host.readStdin`. */
export class StdinDescriptor extends DescriptorBase {
  private readonly filetype: StdioFiletype;

  constructor(
    private readonly host: WasiHost,
    tty: boolean | (() => boolean),
  ) {
    super();
    this.filetype = new StdioFiletype(typeof tty === 'function' ? tty : () => tty);
  }

  fdstat(): Fdstat {
    const rights = RIGHTS_FD_READ;
    return { filetype: this.filetype.get(), flags: 0, rightsBase: rights, rightsInheriting: rights };
  }
  filestat(): Filestat {
    return stdioFilestat(this.filetype.get());
  }
  override read(max: number): Uint8Array {
    if (max === 0) return new Uint8Array(0);
    const got = this.host.readStdin(max);
    if (typeof got === 'number') return fail(got || ERRNO_IO);
    if (got.length > max) return fail(ERRNO_RANGE); // host broke its contract: never drop bytes
    return got;
  }
  override pread(_max: number, _offset: bigint): Uint8Array {
    return fail(ERRNO_SPIPE);
  }
  override seek(_delta: bigint, _whence: number): bigint {
    return fail(ERRNO_SPIPE);
  }
  override tell(): bigint {
    return fail(ERRNO_SPIPE);
  }
  override readReady(): boolean {
    return this.host.stdinReady();
  }
}

/** fd 1 or 2: each write is one `host.writeOutput` call. */
export class OutputDescriptor extends DescriptorBase {
  private readonly filetype: StdioFiletype;

  constructor(
    private readonly host: WasiHost,
    private readonly sink: 1 | 2,
    tty: boolean | (() => boolean),
  ) {
    super();
    this.filetype = new StdioFiletype(typeof tty === 'function' ? tty : () => tty);
  }

  fdstat(): Fdstat {
    const rights = RIGHTS_FD_WRITE;
    return { filetype: this.filetype.get(), flags: 0, rightsBase: rights, rightsInheriting: rights };
  }
  filestat(): Filestat {
    return stdioFilestat(this.filetype.get());
  }
  override write(bytes: Uint8Array): number {
    if (bytes.length > 0) check(this.host.writeOutput(this.sink, bytes));
    return bytes.length;
  }
  override pwrite(_bytes: Uint8Array, _offset: bigint): number {
    return fail(ERRNO_SPIPE);
  }
  override seek(_delta: bigint, _whence: number): bigint {
    return fail(ERRNO_SPIPE);
  }
  override tell(): bigint {
    return fail(ERRNO_SPIPE);
  }
  override writeReady(): boolean {
    return true;
  }
}

/** The three stdio descriptors, in fd order. `tty` says which of them report a terminal. */
export function stdioDescriptors(host: WasiHost, tty: StdioTty = true): Descriptor[] {
  const isTty = (fd: number) => (): boolean => (typeof tty === 'boolean' ? tty : typeof tty === 'function' ? tty(fd) : tty[fd] ?? false);
  return [
    new StdinDescriptor(host, isTty(0)),
    new OutputDescriptor(host, 1, isTty(1)),
    new OutputDescriptor(host, 2, isTty(2)),
  ];
}
