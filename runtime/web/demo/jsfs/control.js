/**
 * The baseline host's control words (an Int32Array on a SharedArrayBuffer):
 *   word NEXT_SLOT          the next pool slot a thread-spawn takes (starts at 1; slot 0 runs _start)
 *   words slotWord(s, 0..2) slot s: command (CMD_*), thread id, start argument
 */
export const NEXT_SLOT = 0;
export const CMD_NONE = 0;
export const CMD_MAIN = 1;
export const CMD_THREAD = 2;
export const slotWord = (slot, i) => 4 + slot * 4 + i;
export const controlBytes = (slots) => (4 + slots * 4) * 4;
