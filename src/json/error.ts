/**
 * The message of a caught value. `catch (e)` gives `unknown`: a thrown Error says what went wrong in
 * its message, anything else (a thrown string from a script host) is its own message.
 */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
