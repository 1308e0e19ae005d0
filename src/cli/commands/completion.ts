/**
 * `completion bash|zsh|fish`: shell completion scripts generated from the commander tree itself, so a
 * new command or flag completes without anyone editing a script: subcommands, flags, the values of `-o`,
 * `--operation-scope` and other flags with fixed choices, and file names where a flag or argument takes a
 * path. What only the host knows, the fleet commands' cluster names (`-C`, a `<cluster>` argument) and
 * resource types (`get`'s and `describe`'s first argument), the scripts ask the binary for, as kubectl's
 * do: `karmada-lite __complete clusters|kinds -- <the words typed>` (the words' --kubeconfig and
 * --context are used; a host that does not answer within 3 s completes nothing).
 */
import type { Command, Option } from 'commander';
import { InputError } from '../../io/documents.js';
import { outputFormatsOf } from '../output.js';
import { connectHost } from '../fleet/command.js';
import { discover } from '../fleet/discovery.js';
import { memberNames, OPERATION_SCOPES } from '../fleet/sources.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** What the host is asked for at completion time (`__complete`). */
export const DYNAMIC = ['clusters', 'kinds'] as const;
type Dynamic = (typeof DYNAMIC)[number];

interface FlagSpec {
  names: string[];
  description: string;
  /** undefined: a switch; [] with files: a path; otherwise the values to offer. */
  takesValue: boolean;
  values: string[];
  files: boolean;
  /** The values are the host's: its Clusters' names. */
  dynamic?: Dynamic;
}

interface CommandSpec {
  path: string[];
  description: string;
  subcommands: string[];
  flags: FlagSpec[];
  /** Positional arguments are file names (or directories). */
  fileArgs: boolean;
  /** The first positional argument is one of the host's names (a cluster, a resource type), never a file. */
  dynamicArg?: Dynamic;
}

const takesPath = (placeholder: string) => /<(path|file|dir)/.test(placeholder);

/** karmadactl's flag values no option declares as choices. */
const KNOWN_VALUES: Record<string, readonly string[]> = { '--operation-scope': OPERATION_SCOPES };

function flagSpec(o: Option): FlagSpec {
  const values = (o.argChoices ?? outputFormatsOf.get(o) ?? KNOWN_VALUES[o.long ?? ''] ?? []).map((v) => v.replace(/\.\.\.$/, ''));
  // a member cluster's name (the fleet commands' -C), not a file of clusters (plan --clusters <file>)
  const clusters = (o.long === '--cluster' || o.long === '--clusters') && /<names?>/.test(o.flags);
  return {
    names: [o.short, o.long].filter((n): n is string => !!n),
    description: o.description,
    takesValue: o.required || o.optional,
    values,
    files: takesPath(o.flags),
    ...(clusters ? { dynamic: 'clusters' as const } : {}),
  };
}

/** What a command's first argument names, by the argument's own name. */
function dynamicArgOf(cmd: Command): Dynamic | undefined {
  const first = cmd.registeredArguments[0]?.name();
  if (first === 'resource' || first === 'kind') return 'kinds';
  if (first === 'cluster' || first === 'clusters') return 'clusters';
  return undefined;
}

/** Every command of the tree with the flags it accepts (its own, its ancestors', and --help). */
export function commandSpecs(program: Command): CommandSpec[] {
  const out: CommandSpec[] = [];
  const help: FlagSpec = { names: ['-h', '--help'], description: 'display help', takesValue: false, values: [], files: false };
  const visit = (cmd: Command, path: string[], inherited: FlagSpec[]) => {
    const own = cmd.options.map(flagSpec);
    // Options of the top level are recognised after a subcommand too (commander's default); -v is one.
    const flags = [...own, ...inherited, help];
    const commands = cmd.commands.filter((c) => !c.name().startsWith('__'));
    const subs = commands.map((c) => c.name());
    const dynamicArg = dynamicArgOf(cmd);
    // pods, names and commands are not files either: a fleet command's arguments never complete to files
    const fleet = dynamicArg !== undefined || flags.some((f) => f.dynamic);
    out.push({
      path,
      description: cmd.description(),
      subcommands: subs.length ? [...subs, 'help'] : [],
      flags,
      fileArgs: cmd.registeredArguments.length > 0 && !fleet,
      ...(dynamicArg ? { dynamicArg } : {}),
    });
    for (const c of commands) visit(c, [...path, c.name()], path.length === 0 ? own.filter((f) => !f.names.includes('--version')) : inherited);
  };
  visit(program, [], []);
  return out;
}

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function bash(program: Command): string {
  const name = program.name();
  const fn = `_${name.replace(/[^A-Za-z0-9]/g, '_')}`;
  const specs = commandSpecs(program);
  const key = (s: CommandSpec) => shQuote(s.path.join(' '));
  const cases = (body: (s: CommandSpec) => string) => specs.map((s) => `    ${key(s)}) ${body(s)} ;;`).join('\n');
  const valueCases = specs
    .flatMap((s) =>
      s.flags
        .filter((f) => f.takesValue)
        .map((f) => {
          const patterns = f.names.map((n) => shQuote(`${s.path.join(' ')}|${n}`)).join('|');
          const reply = f.values.length
            ? `COMPREPLY=($(compgen -W ${shQuote(f.values.join(' '))} -- "$cur"))`
            : f.dynamic
              ? `COMPREPLY=($(compgen -W "$(${fn}_host ${f.dynamic})" -- "$cur"))`
              : f.files
                ? `${fn}_files`
                : 'COMPREPLY=()';
          return `    ${patterns}) ${reply} ;;`;
        }),
    )
    .join('\n');
  return `# bash completion for ${name}, generated by \`${name} completion bash\`.
# Load it in the current shell:   source <(${name} completion bash)
# or for every shell:              ${name} completion bash > /etc/bash_completion.d/${name}

${fn}_files() {
  compopt -o filenames 2>/dev/null
  COMPREPLY=($(compgen -f -- "$cur"))
}

# What only the host knows (cluster names, resource types): asked of ${name} itself with the words typed.
${fn}_host() {
  ${name} __complete "$1" -- "\${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null
}

${fn}_dynamic_arg() {
  case "$1" in
${cases((s) => (s.dynamicArg ? `echo ${s.dynamicArg}; return 0` : 'return 1'))}
  esac
  return 1
}

${fn}_subcommands() {
  case "$1" in
${cases((s) => `echo ${shQuote(s.subcommands.join(' '))}`)}
  esac
}

${fn}_flags() {
  case "$1" in
${cases((s) => `echo ${shQuote(s.flags.flatMap((f) => f.names).join(' '))}`)}
  esac
}

# Flags that take a value (the next word is that value, not a subcommand).
${fn}_value_flags() {
  case "$1" in
${cases((s) => `echo ${shQuote(s.flags.filter((f) => f.takesValue).flatMap((f) => f.names).join(' '))}`)}
  esac
}

${fn}_file_args() {
  case "$1" in
${cases((s) => (s.fileArgs ? 'return 0' : 'return 1'))}
  esac
  return 1
}

${fn}_flag_value() {
  case "$1|$2" in
${valueCases}
    *) COMPREPLY=() ;;
  esac
}

${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # n: the words that are not flags or their values (the command's own words, then its arguments)
  local cmd="" i w skip="" n=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if [[ -n $skip || $w == = ]]; then skip=""; continue; fi
    if [[ $w == -* ]]; then
      [[ $w != *=* && " $(${fn}_value_flags "$cmd") " == *" $w "* ]] && skip=1
      continue
    fi
    n=$((n + 1))
    if [[ " $(${fn}_subcommands "$cmd") " == *" $w "* ]]; then cmd="\${cmd:+$cmd }$w"; fi
  done
  # Bash splits --output=json at the = (COMP_WORDBREAKS): the value follows an "=" word.
  if [[ $cur == = ]]; then
    cur=""
    ${fn}_flag_value "$cmd" "$prev"
    return 0
  fi
  if [[ $prev == = && \${COMP_WORDS[COMP_CWORD-2]} == -* ]]; then
    ${fn}_flag_value "$cmd" "\${COMP_WORDS[COMP_CWORD-2]}"
    return 0
  fi
  if [[ $cur == --*=* ]]; then
    local flag="\${cur%%=*}"
    cur="\${cur#*=}"
    ${fn}_flag_value "$cmd" "$flag"
    return 0
  fi
  if [[ -n $skip ]]; then
    ${fn}_flag_value "$cmd" "$prev"
    return 0
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(${fn}_flags "$cmd")" -- "$cur"))
    return 0
  fi
  COMPREPLY=($(compgen -W "$(${fn}_subcommands "$cmd")" -- "$cur"))
  local dynamic
  if dynamic=$(${fn}_dynamic_arg "$cmd"); then
    # the command's own words come first; the first word after them is the argument
    if ((n == $(wc -w <<<"$cmd"))); then COMPREPLY+=($(compgen -W "$(${fn}_host "$dynamic")" -- "$cur")); fi
    return 0
  fi
  if ${fn}_file_args "$cmd"; then
    compopt -o filenames 2>/dev/null
    COMPREPLY+=($(compgen -f -- "$cur"))
  fi
  return 0
}

complete -F ${fn} ${name}
`;
}

function zsh(program: Command): string {
  const name = program.name();
  // zsh runs bash completion functions through bashcompinit; one generated script serves both.
  return `#compdef ${name}
# zsh completion for ${name}, generated by \`${name} completion zsh\`.
# Load it in the current shell:   source <(${name} completion zsh)
# or for every shell:              ${name} completion zsh > "\${fpath[1]}/_${name}"
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash(program)
  .split('\n')
  .filter((l) => !l.startsWith('#'))
  .join('\n')}`;
}

function fish(program: Command): string {
  const name = program.name();
  const specs = commandSpecs(program);
  const lines = [
    `# fish completion for ${name}, generated by \`${name} completion fish\`.`,
    `# Load it in the current shell:   ${name} completion fish | source`,
    `# or for every shell:              ${name} completion fish > ~/.config/fish/completions/${name}.fish`,
    `complete -c ${name} -f`,
  ];
  const all = specs.flatMap((s) => s.subcommands);
  for (const s of specs) {
    // A command is current when its path was typed and none of its subcommands yet.
    const cond = [
      ...s.path.map((p) => `__fish_seen_subcommand_from ${p}`),
      s.subcommands.length || s.path.length === 0 ? `not __fish_seen_subcommand_from ${(s.subcommands.length ? s.subcommands : all).join(' ')}` : '',
    ].filter(Boolean);
    const when = cond.length ? ` -n ${shQuote(cond.join('; and '))}` : '';
    for (const c of specs.filter((x) => x.path.length === s.path.length + 1 && x.path.slice(0, -1).join(' ') === s.path.join(' '))) {
      lines.push(`complete -c ${name}${when} -a ${shQuote(c.path.at(-1)!)} -d ${shQuote(firstSentence(c.description))}`);
    }
    for (const f of s.flags) {
      const short = f.names.find((n) => /^-[^-]$/.test(n));
      const long = f.names.find((n) => n.startsWith('--'));
      let line = `complete -c ${name}${when}`;
      if (short) line += ` -s ${short.slice(1)}`;
      if (long) line += ` -l ${long.slice(2)}`;
      if (f.takesValue) line += f.values.length ? ` -x -a ${shQuote(f.values.join(' '))}` : f.dynamic ? ` -x -a ${shQuote(fishHost(name, f.dynamic))}` : f.files ? ' -r -F' : ' -x';
      lines.push(`${line} -d ${shQuote(firstSentence(f.description))}`);
    }
    if (s.fileArgs) lines.push(`complete -c ${name}${when} -F`);
    if (s.dynamicArg) lines.push(`complete -c ${name}${when} -a ${shQuote(fishHost(name, s.dynamicArg))}`);
  }
  return lines.join('\n') + '\n';
}

const fishHost = (name: string, what: Dynamic) => `(${name} __complete ${what} -- (commandline -opc)[2..-1])`;

const firstSentence = (s: string) => s.split(/(?<=\.)\s|:\s/)[0]!.slice(0, 80);

export function completionScript(program: Command, shell: string): string {
  switch (shell as Shell) {
    case 'bash':
      return bash(program);
    case 'zsh':
      return zsh(program);
    case 'fish':
      return fish(program);
    default:
      throw new InputError(`completion: the shell must be one of ${SHELLS.join(', ')}, got ${JSON.stringify(shell)}`);
  }
}

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script for bash, zsh or fish.')
    .argument('<shell>', SHELLS.join(', '))
    .addHelpText(
      'after',
      `
Cluster names (-C of get, describe, logs, exec) and resource types (get's and describe's first
argument) are the host's: the scripts run \`karmada-lite __complete clusters|kinds\` with the
--kubeconfig and --context already typed.

Examples:
  source <(karmada-lite completion bash)                          # bash, this shell
  karmada-lite completion bash > /etc/bash_completion.d/karmada-lite
  source <(karmada-lite completion zsh)                           # zsh
  karmada-lite completion fish > ~/.config/fish/completions/karmada-lite.fish`,
    )
    .action((shell: string) => {
      process.stdout.write(completionScript(program, shell));
    });
  // what the scripts ask the host for; hidden: never typed by hand
  program
    .command('__complete', { hidden: true })
    .description('Print the host\'s cluster names or resource types, one a line, for the completion scripts.')
    .argument('<what>', DYNAMIC.join(' or '))
    .argument('[words...]', 'the command line typed so far (its --kubeconfig and --context are used)')
    .allowUnknownOption()
    .action(async (what: string, words: string[]) => {
      if (!(DYNAMIC as readonly string[]).includes(what)) throw new InputError(`__complete: ${JSON.stringify(what)} is not one of ${DYNAMIC.join(', ')}`);
      process.stdout.write((await hostNames(what as Dynamic, words)).map((n) => `${n}\n`).join(''));
    });
}

/** The flag's value in the words typed (`--kubeconfig x` or `--kubeconfig=x`). */
function flagIn(words: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < words.length; i++) {
    if (words[i] === flag) return words[i + 1];
    if (words[i]!.startsWith(`${flag}=`)) return words[i]!.slice(flag.length + 1);
  }
  return undefined;
}

/** The host's cluster names or resource types (plural names, as kubectl completes them); nothing when the host cannot say. */
async function hostNames(what: Dynamic, words: readonly string[]): Promise<string[]> {
  try {
    const host = await connectHost({ kubeconfig: flagIn(words, '--kubeconfig'), context: flagIn(words, '--context'), requestTimeout: '3s' });
    if (what === 'clusters') return await memberNames(host.client, undefined);
    return [...new Set((await discover(host.client)).map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource)))].sort();
  } catch {
    return [];
  }
}
