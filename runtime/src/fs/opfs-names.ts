/** Names the OPFS I/O worker reserves inside a mounted directory. */

/** Prefix of the temporary sibling a write-back fills before it replaces the file. */
export const TMP_PREFIX = '.spindle-tmp.';
