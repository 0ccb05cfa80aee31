import { evaluateRiskText } from './risk-text.evaluator';
import type { RiskRule } from './risk.types';

function rulesOf(text: string): RiskRule[] {
  return evaluateRiskText(text, 'shell').rules.map((r) => r.rule);
}

describe('signals to every process (through evaluateRiskText with the shell hint)', () => {
  it.each(['kill -9 -1', 'kill -- -1', 'kill -KILL -1', 'kill -s KILL -1', 'kill -TERM -- -1', 'sudo killall5 -9'])(
    'reads %s as taking the machine down, as Get-Process | Stop-Process is',
    (text) => {
      expect(rulesOf(text)).toContain('infrastructure-destroy');
    },
  );

  it.each(['kill -9 4242', 'kill -1 4242', 'kill -HUP $(cat app.pid)', 'kill %1', 'kill -l'])(
    'leaves %s alone',
    (text) => {
      expect(rulesOf(text)).toEqual([]);
    },
  );
});

describe('every container removed (through evaluateRiskText with the shell hint)', () => {
  it.each([
    'docker rm -f $(docker ps -aq)',
    'docker rm -f $(docker ps -a -q)',
    'docker container rm --force $(docker container ls --all --quiet)',
    'docker stop $(docker ps -aq) && docker rm $(docker ps -aq)',
    'podman rm -f $(podman ps -aq)',
    'docker ps -aq | xargs docker rm -f',
    'docker ps -a -q | xargs -r docker rm --force',
    'podman ps -aq | xargs podman rm -f',
    'docker container ls --all --quiet | xargs -I{} docker container rm -f {}',
  ])('reads %s as tearing down every container, as kubectl delete pods --all is', (text) => {
    expect(rulesOf(text)).toContain('infrastructure-destroy');
  });

  it.each([
    'docker rm -f web',
    'docker rm $(docker ps -aq -f status=exited)',
    'docker rm $(docker ps -a -q --filter "name=test-")',
    'docker stop $(docker ps -q)',
    'docker ps -aq',
    'docker rmi $(docker images -q -f dangling=true)',
    'docker ps -aq -f status=exited | xargs docker rm',
    'docker ps -a | grep test- | xargs docker rm',
    'docker ps -q | xargs docker stop',
    'docker ps -q | xargs docker kill',
    'docker kill $(docker ps -q)',
    'docker images -q | xargs docker rmi -f',
    'docker rmi -f $(docker images -q)',
  ])('leaves %s alone', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });
});

describe('Az PowerShell removals (through evaluateRiskText with the shell hint)', () => {
  it.each([
    'Remove-AzResourceGroup -Name prod-rg -Force',
    'Get-AzResourceGroup | Remove-AzResourceGroup -Force',
    'Remove-AzVM -Name vm1 -ResourceGroupName rg -Force',
    'Remove-AzStorageAccount -Name st1 -ResourceGroupName rg -Force',
    'Remove-AzKeyVault -VaultName kv1',
    'Remove-AzAksCluster -Name aks1 -ResourceGroupName rg',
    'Remove-AzSqlServer -ServerName sql1 -ResourceGroupName rg',
  ])('reads %s as az group / vm / storage ... delete is read', (text) => {
    expect(rulesOf(text)).toContain('infrastructure-destroy');
  });

  it.each(['Get-AzResourceGroup', 'Remove-AzResourceGroup -Name rg -WhatIf', 'Remove-AzTag -ResourceId $id'])(
    'leaves %s alone',
    (text) => {
      expect(rulesOf(text)).toEqual([]);
    },
  );
});
