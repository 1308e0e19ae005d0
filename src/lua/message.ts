/**
 * The error message a script throws, bounded before it leaves the sandbox.
 *
 * A script can raise a message as large as its string budget (`error(table.concat(t))` over 50 copies of
 * a 1 MB string is 50 MB). Such a message would be copied into a JS string, sent from the worker, logged,
 * stringified into an Event, a condition and a webhook answer: the host runs out of memory long before
 * the script does. Only the first MAX_MESSAGE_BYTES bytes are ever read from the Lua string, with a note of
 * its whole size; a script that raises a normal message sees no difference.
 */
import { decodeLuaString } from './fengari.js';

/** The most of a script's error message kept (bytes of UTF-8); a note of the whole size follows. */
export const MAX_MESSAGE_BYTES = 4096;

function cutNote(total: number): string {
  return `... [message cut to its first ${MAX_MESSAGE_BYTES} of ${total} bytes]`;
}

/** The first MAX_MESSAGE_BYTES bytes, backed up to the start of a UTF-8 sequence (no half character). */
function keptPrefix(bytes: Uint8Array): string {
  let cut = MAX_MESSAGE_BYTES;
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return decodeLuaString(bytes.subarray(0, cut));
}

/** A message from the bytes of a Lua string, decoding only the prefix that is kept. */
export function messageFromBytes(bytes: Uint8Array): string {
  if (bytes.length <= MAX_MESSAGE_BYTES) return decodeLuaString(bytes);
  return keptPrefix(bytes) + cutNote(bytes.length);
}

/** Room past the bound for the note and a prefix the host adds (an operation's name): not cut again. */
const SLACK = 256;

/** The same bound for a message already in JS (one built by the host around script data). */
export function boundMessage(message: string): string {
  // A UTF-16 unit is 1 to 3 bytes of UTF-8: a string this short is under the bound whatever it holds.
  if (message.length <= MAX_MESSAGE_BYTES / 3) return message;
  const total = Buffer.byteLength(message);
  if (total <= MAX_MESSAGE_BYTES + SLACK) return message;
  // Every UTF-16 unit is at least one byte: this slice holds at least the bytes that are kept.
  return keptPrefix(Buffer.from(message.slice(0, MAX_MESSAGE_BYTES))) + cutNote(total);
}
