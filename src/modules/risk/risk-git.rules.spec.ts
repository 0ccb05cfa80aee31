import { evaluateRiskText } from './risk-text.evaluator';
import type { RiskRule } from './risk.types';

function rulesOf(text: string): RiskRule[] {
  return evaluateRiskText(text, 'shell').rules.map((r) => r.rule);
}

describe('GIT_COMMANDS', () => {
  it.each<[string, RiskRule]>([
    ['git push --force', 'force-push'],
    ['git push -f', 'force-push'],
    ['git push origin main -f', 'force-push'],
    ['git push -uf origin main', 'force-push'],
    ['git push origin +main', 'force-push'],
    ['git push origin +HEAD:main', 'force-push'],
    ['git push origin -- +main', 'force-push'],
    ['git push -- origin +HEAD:refs/heads/main', 'force-push'],
    ['git push --force-with-lease', 'force-push'],
    ['git push --force-with-lease=main:abc123 origin main', 'force-push'],
    ['git push --mirror', 'force-push'],
    ['git -C /repo push -f', 'force-push'],
    ['git -c push.default=current push --force', 'force-push'],
    ['git --git-dir /r/.git push -f', 'force-push'],
    ['git --no-pager push --force', 'force-push'],
    ['git push -o ci.skip --force', 'force-push'],
    ['git push origin --delete feature', 'remote-delete'],
    ['git push -d origin feature', 'remote-delete'],
    ['git push origin :feature', 'remote-delete'],
    ['git push --prune origin', 'remote-delete'],
    ['git reset --hard', 'hard-reset'],
    ['git reset --hard HEAD~2', 'hard-reset'],
    ['git -C x reset --hard origin/main', 'hard-reset'],
    ['git clean -f', 'clean'],
    ['git clean -fd', 'clean'],
    ['git clean -fdx', 'clean'],
    ['git clean -dfx', 'clean'],
    ['git clean -ffdx', 'clean'],
    ['git clean --force', 'clean'],
    ['git clean -e keep -fd', 'clean'],
    ['git checkout -- .', 'discard'],
    ['git checkout .', 'discard'],
    ['git checkout -- file.ts', 'discard'],
    ['git checkout HEAD~1 -- src', 'discard'],
    ['git checkout --force main', 'discard'],
    ['git restore .', 'discard'],
    ['git restore src/a.ts', 'discard'],
    ['git restore -W -S .', 'discard'],
    ['git restore --source=HEAD~3 .', 'discard'],
    ['git switch -f main', 'discard'],
    ['git switch --discard-changes main', 'discard'],
    ['git stash clear', 'discard'],
    ['git stash drop stash@{0}', 'discard'],
    ['git branch -D feature', 'branch-delete'],
    ['git branch -d -f feature', 'branch-delete'],
    ['git branch --delete --force feature', 'branch-delete'],
    ['git rm -r docs', 'recursive-delete'],
  ])('flags %s as %s', (text, rule) => {
    expect(rulesOf(text)).toContain(rule);
  });

  it.each<[string, RiskRule]>([
    ['git reset --har', 'hard-reset'],
    ['git reset --ha HEAD~2', 'hard-reset'],
    ['git push --force-w origin main', 'force-push'],
    ['git push --mirr backup', 'force-push'],
    ['git push --delet origin feature', 'remote-delete'],
    ['git push --prun origin', 'remote-delete'],
    ['git clean --forc -d', 'clean'],
    ['git checkout --forc main', 'discard'],
    ['git switch --discard main', 'discard'],
    ['git branch --del --forc feature', 'branch-delete'],
  ])('reads a long option abbreviated as git accepts it (a unique prefix): %s as %s', (text, rule) => {
    expect(rulesOf(text)).toContain(rule);
  });

  it.each([
    'git push',
    'git push origin main',
    'git push -u origin feature',
    'git push --tags origin',
    'git push origin :',
    'git push --no-force origin main',
    'git push origin refs/heads/a:refs/heads/b',
    'git reset',
    'git reset --soft HEAD~1',
    'git reset --mixed',
    'git reset --keep HEAD~1',
    'git clean -n',
    'git clean -nfd',
    'git clean --dry-run -fd',
    'git clean -d',
    'git checkout main',
    'git checkout -b fix/x',
    'git checkout -B fix/x origin/fix/x',
    'git restore --staged .',
    'git restore -S src/a.ts',
    'git switch main',
    'git switch -c feature',
    'git stash',
    'git stash list',
    'git branch -d merged',
    'git branch -m old new',
    'git rm file.txt',
    'git rm --cached -r build',
    'git rm -r --cached .',
    'git log --force-push-notes',
    'git commit -m "git push --force later"',
  ])('leaves %s alone', (text) => {
    expect(evaluateRiskText(text, 'shell').risky).toBe(false);
  });

  it.each([
    'git push --dry-run --force',
    'git push -n -f origin main',
    'git push -nf origin main',
    'git push --force --dry-run origin +main',
    'git push --dry-run --delete origin feature',
    'git push -n origin :old',
    'git push --mirror --dry-run backup',
    'git rm -r -n src/',
    'git rm -r --dry-run docs',
    'rsync -av --delete --dry-run src/ dst/',
    'rsync -avn --delete src/ dst/',
    'aws s3 rm s3://b/p --recursive --dryrun',
  ])('treats a dry run as harmless: %s', (text) => {
    expect(evaluateRiskText(text, 'shell')).toEqual({ risky: false, rules: [] });
  });

  it.each<[string, RiskRule]>([
    ['git push --dry-run origin main && git push --force origin main', 'force-push'],
    ['git push -f origin main --no-dry-run', 'force-push'],
    ['git -C repo push --force origin -- -n', 'force-push'],
  ])('still flags the real run next to a dry run: %s', (text, rule) => {
    expect(rulesOf(text)).toContain(rule);
  });
});
