import { evaluateRiskText } from './risk-text.evaluator';
import type { RiskRule } from './risk.types';

function rulesOf(text: string): RiskRule[] {
  return evaluateRiskText(text, 'shell').rules.map((r) => r.rule);
}

describe('command words built at run time (through evaluateRiskText with the shell hint)', () => {
  it.each([
    'set -- rm -rf /; "$@"',
    'set -- git push -f; $@',
    'a=(rm -rf /); "${a[@]}"',
    'declare -a c=(rm -rf /); ${c[*]}',
    'read -r c <<< "rm -rf /"; $c',
    'read c a <<< "rm -rf"; $c $a /',
    'IFS=,; read -r c a <<< "rm,-rf"; $c $a /',
    "mapfile -t cmd <<< 'rm'; ${cmd[0]} -rf /",
    "x=$(printf 'r%s' m); $x -rf /",
    '$(npm bin)/tsc --noEmit',
    'x=`echo rm`; $x -rf /',
    'printf -v c %s rm; $c -rf /',
    'rm${IFS}-rf${IFS}/',
    'c=rm; if true; then c=ls; fi; $c -rf /',
    'c=ls; for c in rm; do $c -rf /; done',
    'c=ls; source ./env.sh; $c -rf /',
    'X=${CMD:-rm}; $X -rf /',
    '${CMD} /',
    'exec "$@"',
    'sudo "$TOOL" -rf /',
    'find . -exec $X {} \\;',
    'xargs -a cmds.txt -I{} sh -c {}',
    '/???/r? -rf /',
    '/bin/r* -rf /',
    './build/*.sh',
    'x=rm; declare -n r=x; $r -rf /',
    'declare -n r; r=x; $r -rf /',
    'python -c \'import os;os.system("".join(["r","m"," -rf /"]))\'',
    'python3 -c "import os; c=input(); os.system(c)"',
    "perl -e 'system($ENV{C})'",
  ])('reads a command word it cannot resolve as opaque: %s', (text) => {
    expect(rulesOf(text)).toContain('opaque');
  });

  it.each([
    'set -- -rf /; rm "$@"',
    'opts=(-rf /srv); rm "${opts[@]}"',
    'F=$(printf -- -rf); rm $F /',
    'read -r f <<< "-rf"; rm $f /',
    'git push $(cat opts) origin main',
    'sudo rm $*',
  ])('reads a destructive command with arguments it cannot count as opaque: %s', (text) => {
    expect(rulesOf(text)).toContain('opaque');
  });

  it.each<[string, RiskRule]>([
    ['IFS=,; CMD=rm,-rf,/; $CMD', 'recursive-delete'],
    ['IFS=:; C=git:push:-f; $C', 'force-push'],
    ['C=r; C+=m; $C -rf /', 'recursive-delete'],
    ['"$HOME/bin/rm" -rf /', 'recursive-delete'],
    ['P=/usr/bin; $P/rm -rf /srv', 'recursive-delete'],
    ['hash -p /bin/rm foo; foo -rf /', 'recursive-delete'],
    ['"$(echo /bin)/rm" -rf /', 'recursive-delete'],
  ])('resolves what it can prove: %s', (text, rule) => {
    expect(rulesOf(text)).toContain(rule);
  });

  it.each([
    'echo "rm -rf /"',
    'git commit -m "rm -rf the cache; set -- x; \\"$@\\""',
    'CMD=ls; $CMD -la',
    'IFS=,; CMD=ls,-la; $CMD',
    '"$HOME/.local/bin/tool" --version',
    '"$JAVA_HOME/bin/java" -jar app.jar',
    './node_modules/.bin/tsc --noEmit',
    'read -r name <<< "x"; echo "$name"',
    'set -- a b; echo "$@"',
    'for f in *.txt; do cat "$f"; done',
    'for f in *.log; do rm $f; done',
    'F=$(mktemp); rm -f "$F"',
    'echo "$@"',
    'printf "%s\\n" "${names[@]}"',
    'while :; do sleep 5; done',
    'git add $(git ls-files -m)',
    'docker rm $(docker ps -aq -f status=exited)',
    'cp $(ls *.txt) backup/',
    'F=$(git rev-parse HEAD); git show $F',
    'sudo chown -R $(whoami) ~/.npm',
    'chown -R $(id -u):$(id -g) ./data',
    '"$(npm bin)/jest" --ci',
    '[ -f x ] && echo y',
    'ls *.txt',
    'https://example.com/search?q=rm+-rf&page=2',
    'Ready? Go now',
    "python3 -c \"import subprocess; subprocess.run(['ls', '-la'])\"",
    'python3 -c "import os; os.system( \'ls\' )"',
    'node -e "console.log(/a/.exec(\'abc\'))"',
  ])('stays safe when the command is known: %s', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });
});
