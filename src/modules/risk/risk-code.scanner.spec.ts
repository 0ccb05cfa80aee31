import { evaluateRiskText } from './risk-text.evaluator';
import type { RiskRule } from './risk.types';

function rulesOf(text: string): RiskRule[] {
  return evaluateRiskText(text, 'shell').rules.map((r) => r.rule);
}

describe('scanInterpreterCode (through evaluateRiskText with the shell hint)', () => {
  describe('calls whose names or code are built from pieces', () => {
    it.each([
      `python -c "import shutil; getattr(shutil, 'rmt'+'ree')('/')"`,
      `python3 -c "getattr(__import__('shutil'), 'rm' 'tree')('/srv')"`,
      `python3 -c "exec('import shutil; shutil.rm'+'tree(\\"/srv\\")')"`,
      `node -e "require('fs')['rm'+'Sync']('/srv', {recursive: true})"`,
      `node -e "eval('require(\\"fs\\").rmSync(\\"/srv\\", {recur' + 'sive: true})')"`,
      `ruby -e 'require "fileutils"; FileUtils.send("rm_" + "rf", "/srv")'`,
      `perl -e 'use File::Path; eval "rmt" . "ree(q{/srv})"'`,
    ])('folds literals glued together before reading the call: %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each([
      `python3 -c "getattr(__import__('os'), 'sys'+'tem')('rm -rf /srv')"`,
      `python3 -c "exec('import os; os.sys' + 'tem(\\"rm -rf /srv\\")')"`,
      `python3 -c "__import__('o'+'s').system('rm -rf /srv')"`,
      `perl -e 'eval "sys" . "tem(q{rm -rf /srv})"'`,
    ])('reads the command a built-up call hands to a shell: %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each([
      `python3 -c "import shutil, sys; getattr(shutil, sys.argv[1])('/srv')"`,
      `python3 -c "import os; getattr(os, ''.join(['sys', 'tem']))(cmd)"`,
      `python3 -c "__import__(sys.argv[1]).rmtree('/srv')"`,
      `python3 -c "import os; os.__dict__[sys.argv[1]]('rm -rf /srv')"`,
      `python3 -c "import shutil; vars(shutil)[name]('/srv')"`,
      `python3 -c "import importlib; importlib.import_module(name).run()"`,
      `python3 -c "exec('import os; os.' + name + '(x)')"`,
      `node -e "require('child_process')[process.argv[1]]('rm -rf /srv')"`,
      `node -e "new Function(process.argv[1])()"`,
      `ruby -e 'FileUtils.send(ARGV[0], "/srv")'`,
      `ruby -e 'eval ARGV[0]'`,
      `perl -e 'eval $ARGV[0]'`,
      'node -e \'eval(`require("child_process").execSync("${cmd}")`)\'',
      `perl -e 'eval "$ARGV[0]"'`,
      `ruby -e 'eval "#{ARGV[0]}"'`,
      `php -r 'eval("$code;");'`,
    ])('reads a dynamic lookup or an eval of a non-literal string on code that runs as opaque: %s', (text) => {
      expect(rulesOf(text)).toContain('opaque');
    });
  });

  it.each([
    `python3 -c "import os; print(getattr(os, 'getcwd')())"`,
    `python3 -c "import json; print(json.dumps({'a': 'x' + 'y'}))"`,
    `python3 -c "print(__import__('json').dumps({}))"`,
    `python3 -c "import sys; print(getattr(sys, 'version'))"`,
    `python3 -c "exec('print(1 + 2)')"`,
    `python3 -c "import os; print(os.__dict__['sep'])"`,
    `python3 -c "import json; print(vars(json)[k])"`,
    `python3 -c "print('rm' + 'dir is a command')"`,
    `node -e "console.log(require('os')['hostname']())"`,
    `node -e "const o = {a: 1}; const k = 'a'; console.log(o[k])"`,
    `ruby -e 'puts [1, 2].send(:sum)'`,
    `perl -e 'eval { die "x" }; print "ok\\n"'`,
    `perl -e 'print "a" . "b"'`,
    "node -e 'console.log(eval(`1 + 2`))'",
    `perl -e 'eval "1 + 2"; print $@'`,
    `ruby -e 'puts eval("1 + 2")'`,
  ])('leaves an ordinary one-liner alone: %s', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });
});
