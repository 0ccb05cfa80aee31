/**
 * Remove-Item's parameters (PowerShell 5.1 and 7) with their aliases, and the common parameters every cmdlet takes.
 * PowerShell binds any unambiguous prefix of a name: `-r`, `-rec` and `-Recurse` are one switch, `-fo` is `-Force`,
 * while `-f` is no parameter (`-Filter` or `-Force`?).
 */
const REMOVE_ITEM_PARAMETERS: Readonly<Record<string, readonly string[]>> = {
  path: [],
  literalpath: ['pspath', 'lp'],
  filter: [],
  include: [],
  exclude: [],
  recurse: [],
  force: [],
  credential: [],
  whatif: ['wi'],
  confirm: ['cf'],
  stream: [],
  usetransaction: ['usetx'],
  verbose: ['vb'],
  debug: ['db'],
  erroraction: ['ea'],
  warningaction: ['wa'],
  informationaction: ['infa'],
  progressaction: ['proga'],
  errorvariable: ['ev'],
  warningvariable: ['wv'],
  informationvariable: ['iv'],
  outvariable: ['ov'],
  outbuffer: ['ob'],
  pipelinevariable: ['pv'],
};

const NAMES = new Set(Object.keys(REMOVE_ITEM_PARAMETERS));
const ALIASES = new Map(
  Object.entries(REMOVE_ITEM_PARAMETERS).flatMap(([name, aliases]) => aliases.map((a) => [a, name] as const)),
);

/**
 * The Remove-Item parameter a word binds to (`-fo` → `force`, `-Recurse:$true` → `recurse`), or undefined when
 * PowerShell would refuse it: not a parameter, or a prefix of several (`-f`, `-c`).
 */
export function removeItemParameter(word: string): string | undefined {
  const name = /^-([a-z]+)(?::.*)?$/i.exec(word)?.[1]?.toLowerCase();
  if (name === undefined) return undefined;
  if (NAMES.has(name)) return name;
  const alias = ALIASES.get(name);
  if (alias) return alias;
  const candidates = [...NAMES].filter((n) => n.startsWith(name));
  return candidates.length === 1 ? candidates[0] : undefined;
}
