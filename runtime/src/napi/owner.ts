/**
 * The owner's end of what emnapi sends from a pool thread to the main thread (napi/thread.ts
 * posts it: `threadPoster`). Browsers: each worker posts to its parent, the owner, on a port of
 * its own, and the owner's platform hands the messages to `receive` (napi/browser.ts). Node: the
 * same for the workers the owner starts (napi/node.ts `ownerPlatform`: a BroadcastChannel's
 * message comes as a MessageEvent, and the first one made Node 26 load undici, ~40 ms of the main
 * thread's CPU); for workers started by workers, the program's BroadcastChannel and one channel
 * per worker that only that worker also holds. Those are opened ahead of the workers: `spare` more than the workers that have started, checked at
 * every message (a worker that started beyond them posts on the program's channel until it finds
 * its own open). emnapi listens for those messages on the worker objects of its own thread
 * manager; spindle's pool threads are not such workers, so the owner hands emnapi one stand-in
 * (`port`) that receives every thread's messages:
 *   - 'async-send': run a callback of the addon on the main thread (thread-safe functions,
 *     async work completions), through emnapi's own handler (`addSendListener(port)`);
 *   - 'async-thread-ready': a thread of the addon's libuv-style pool started. emnapi's
 *     `_emnapi_tell_js_uvthreadpool` would wait for it on each thread's worker object, so the
 *     two functions that use it are replaced (`envOverrides`).
 *
 * Thread rules: the owner's thread only (the caller of the napi host).
 */

type Handler = (event: unknown) => void;

/** emnapi's handlers take the message itself in Node, a MessageEvent elsewhere. */
const IN_NODE = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';

interface EmnapiMessage { __emnapi__?: { type?: string } }

/** Workers with a channel of their own (napi/thread.ts `NapiEmbed.own`); any beyond use the program's. */
const OWN_CHANNELS = 1024;

export class ThreadMessages {
  /** The program's channel (NapiEmbed.channel); none with ports. */
  readonly name: string | undefined;
  private readonly channel: BroadcastChannel | undefined;
  /** NapiEmbed.own: word 0 counts the workers that took a number, word n is 1 once `${name}/${n}` is open. */
  readonly own: SharedArrayBuffer | undefined;
  private readonly ownWords: Int32Array | undefined;
  private readonly ownChannels: BroadcastChannel[] = [];
  private readonly spare: number;
  private readonly handlers = new Set<Handler>();
  private readyWanted = 0;
  private readyCount = 0;
  private readyWaiters: (() => void)[] = [];

  /** A stand-in for an emnapi worker: emnapi attaches its message handlers to it. */
  readonly port = {
    on: (_type: string, h: Handler): void => { this.handlers.add(h); },
    off: (_type: string, h: Handler): void => { this.handlers.delete(h); },
    addEventListener: (_type: string, h: Handler): void => { this.handlers.add(h); },
    removeEventListener: (_type: string, h: Handler): void => { this.handlers.delete(h); },
  };

  /**
   * 'ports': each worker's messages come to `receive` (browsers). A number: BroadcastChannels,
   * with `spare` of the workers' own opened ahead of the workers that started (Node); 0: only the
   * program's, for all threads.
   */
  constructor(route: number | 'ports') {
    this.spare = route === 'ports' ? 0 : route;
    if (route === 'ports') return;
    this.name = `spindle-napi-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
    this.channel = new BroadcastChannel(this.name);
    this.listen(this.channel);
    if (route > 0) {
      this.own = new SharedArrayBuffer(4 * OWN_CHANNELS);
      this.ownWords = new Int32Array(this.own);
    }
  }

  /**
   * Opens the workers' own channels up to `workers` + `spare` (napi/host.ts: the pool's first
   * workers, before any starts; then at every message).
   */
  openAhead(workers: number): void {
    const words = this.ownWords;
    if (!words) return;
    const upTo = Math.min(workers + this.spare, words.length - 1);
    for (let n = this.ownChannels.length + 1; n <= upTo; n++) {
      const channel = new BroadcastChannel(`${this.name}/${n}`);
      this.listen(channel);
      this.ownChannels.push(channel);
      Atomics.store(words, n, 1);
    }
  }

  private listen(channel: BroadcastChannel): void {
    // Node: a channel must not keep the process alive; emnapi refs its own handle while
    // Node-API work is pending (Context's waiting-request counter).
    (channel as { unref?: () => void }).unref?.();
    channel.onmessage = (e: MessageEvent) => this.receive(e.data);
  }

  /** One message of a thread's, in the order that thread posted it. */
  receive(message: unknown): void {
    const data = message as EmnapiMessage;
    if (this.ownWords && Atomics.load(this.ownWords, 0) + this.spare > this.ownChannels.length) this.openAhead(Atomics.load(this.ownWords, 0));
    if (data?.__emnapi__?.type === 'async-thread-ready') this.threadReady();
    for (const h of this.handlers) h(IN_NODE ? data : { data });
  }

  private threadReady(): void {
    this.readyCount++;
    if (this.readyCount < this.readyWanted) return;
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * emnapi functions that look threads up in its own thread manager, replaced: the addon's pool
   * told the main thread how many threads it started (`_emnapi_tell_js_uvthreadpool`), and work
   * is queued once they all said they are ready (`_emnapi_after_uvthreadpool_ready`).
   * `table`: the instance's function table (known once the instance exists).
   */
  envOverrides(table: () => WebAssembly.Table): WebAssembly.ModuleImports {
    return {
      _emnapi_tell_js_uvthreadpool: (_threads: number, size: number): void => {
        this.readyWanted += size;
      },
      _emnapi_after_uvthreadpool_ready: (callback: number, q: number, type: number): void => {
        const call = (): void => (table().get(callback) as (q: number, type: number) => void)(q, type);
        if (this.readyCount >= this.readyWanted) call();
        else this.readyWaiters.push(call);
      },
    };
  }

  close(): void {
    this.channel?.close();
    for (const c of this.ownChannels) c.close();
    this.handlers.clear();
  }
}
