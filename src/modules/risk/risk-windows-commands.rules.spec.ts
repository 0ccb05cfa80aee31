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
    'Get-ChildItem | Select-Object Name',
    'gci -r | Measure-Object',
    'Remove-Item C:\\temp\\a.txt',
    'echo C:\\temp\\a.txt | Remove-Item',
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

  it.each(['Remove-Item -Path C:\\data -Recurse:$true -Force', 'ri C:\\data -r:$true'])(
    'reads a switch given its value: %s',
    (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    },
  );

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
