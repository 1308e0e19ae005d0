/** The command a run names: its first word that is not a flag (`-v`'s level is the next word, not a command). */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '-v' || argv[i] === '--v') i++;
    else if (!argv[i]!.startsWith('-')) return argv[i];
  }
  return undefined;
}
