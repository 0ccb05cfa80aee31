import { evaluateRiskText } from './risk-text.evaluator';
import type { RiskRule } from './risk.types';

function rulesOf(text: string): RiskRule[] {
  return evaluateRiskText(text, 'shell').rules.map((r) => r.rule);
}

describe('commands run in containers (through evaluateRiskText with the shell hint)', () => {
  it.each([
    'docker compose exec web rm -rf /app',
    'docker compose -f prod.yml -p shop exec -T -u root web rm -rf /app',
    'docker-compose exec --index 2 web rm -rf /app',
    'docker-compose run --rm -e A=1 web rm -rf /app',
    'podman-compose exec web rm -rf /app',
    'docker -H ssh://prod exec web rm -rf /app',
    'docker --context prod container exec -it web rm -rf /app',
    'nerdctl exec web rm -rf /app',
    'crictl exec -it 3f2a rm -rf /app',
    'lxc exec web -- rm -rf /srv',
    'incus exec web --env A=1 -- rm -rf /srv',
  ])('reads the command a container runs: %s', (text) => {
    expect(rulesOf(text)).toContain('recursive-delete');
  });

  it.each([
    'docker compose exec web ls -la /app',
    'docker compose up -d',
    'docker-compose run --rm web npm test',
    'docker -H ssh://prod ps',
    'nerdctl exec web cat /etc/hosts',
    'crictl ps',
    'lxc exec web -- ls /srv',
  ])('leaves %s alone', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });

  it.each([
    'kubectl run tmp --rm -i --image=alpine -- rm -rf /data',
    'kubectl run tmp --image=alpine --command -- sh -c "rm -rf /data"',
    'kubectl debug -it mypod --image=busybox --target=app -- rm -rf /data',
    'oc rsh mypod rm -rf /data',
    'oc rsh -c app mypod rm -rf /data',
  ])('reads the command kubectl run, kubectl debug and oc rsh start in a pod: %s', (text) => {
    expect(rulesOf(text)).toContain('recursive-delete');
  });

  it.each(['kubectl run web --image=nginx', 'kubectl run tmp --rm -i --image=alpine -- ls /', 'oc rsh mypod'])(
    'leaves %s alone',
    (text) => {
      expect(rulesOf(text)).toEqual([]);
    },
  );
});

describe('commands run on other machines (through evaluateRiskText with the shell hint)', () => {
  it.each([
    "vagrant ssh -c 'rm -rf /srv'",
    'vagrant ssh web --command "rm -rf /srv"',
    "gcloud compute ssh vm --zone europe-west1-b --command 'rm -rf /srv'",
    "gcloud compute ssh vm --command='rm -rf /srv'",
    'gcloud compute ssh vm -- rm -rf /srv',
    "az vm run-command invoke -g rg -n vm --command-id RunShellScript --scripts 'rm -rf /srv'",
  ])('reads the command: %s', (text) => {
    expect(rulesOf(text)).toContain('recursive-delete');
  });

  it.each([
    "vagrant ssh -c 'uptime'",
    'vagrant up',
    "gcloud compute ssh vm --command 'df -h'",
    'gcloud compute instances list',
    "az vm run-command invoke -g rg -n vm --command-id RunShellScript --scripts 'uptime'",
  ])('leaves %s alone', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });
});

describe('Windows Subsystem for Linux (through evaluateRiskText with the shell hint)', () => {
  it.each([
    'wsl rm -rf /mnt/c/data',
    'wsl -d Ubuntu -u root -- rm -rf /srv',
    'wsl.exe -e rm -rf /srv',
    'wsl --exec rm -rf /srv',
  ])('reads the command wsl runs: %s', (text) => {
    expect(rulesOf(text)).toContain('recursive-delete');
  });

  it('reads unregistering a distribution (its disk and every file in it deleted) as infrastructure-destroy', () => {
    expect(rulesOf('wsl --unregister Ubuntu')).toContain('infrastructure-destroy');
  });

  it.each(['wsl --shutdown', 'wsl -l -v', 'wsl ls -la', 'wsl -d Ubuntu -- uname -a'])('leaves %s alone', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });
});
