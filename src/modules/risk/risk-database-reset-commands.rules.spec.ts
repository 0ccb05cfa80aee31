import { evaluateRiskText } from './risk-text.evaluator';
import type { RiskRule } from './risk.types';

function rulesOf(text: string): RiskRule[] {
  return evaluateRiskText(text).rules.map((r) => r.rule);
}

describe('framework commands that drop or empty the database (through evaluateRiskText)', () => {
  it.each([
    'npx prisma migrate reset --force',
    'npx prisma migrate reset',
    'npx prisma db push --force-reset',
    'pnpm exec prisma migrate reset -f',
    'pnpm dlx prisma migrate reset --force',
    'yarn dlx prisma db push --accept-data-loss --force-reset',
    'bunx prisma migrate reset --force',
    'npm exec -- prisma migrate reset --force',
    'rails db:drop',
    'bin/rails db:reset',
    'bundle exec rake db:drop db:create db:migrate',
    'RAILS_ENV=production bundle exec rails db:schema:load',
    'rake db:purge',
    'python manage.py flush --noinput',
    'python3 manage.py reset_db --noinput',
    './manage.py flush',
    'django-admin flush --no-input',
    'php artisan migrate:fresh --seed',
    'php artisan db:wipe --force',
    'php artisan migrate:reset',
    'npx sequelize-cli db:drop',
    'npx typeorm schema:drop -d src/data-source.ts',
    'supabase db reset',
    'npx supabase db reset --linked',
    'heroku pg:reset DATABASE_URL --confirm my-app',
    'firebase firestore:delete --all-collections --force',
  ])('reads %s as dropping the database', (text) => {
    expect(rulesOf(text)).toContain('drop');
  });

  it.each(['npx -c "rm -rf /srv"', 'bunx --bun rm -rf dist', 'pnpm exec rm -rf dist', 'bundle exec rm -rf tmp'])(
    'reads the command a package runner runs: %s',
    (text) => {
      expect(rulesOf(text)).toContain('recursive-delete');
    },
  );

  it.each([
    'npx prisma migrate dev --name init',
    'npx prisma migrate deploy',
    'npx prisma generate',
    'npx prisma db push',
    'npx prisma migrate reset --help',
    'rails db:migrate',
    'bin/rails db:seed',
    'bundle exec rake db:create db:migrate',
    'bundle install',
    'python manage.py migrate',
    'python manage.py sqlflush',
    'python manage.py runserver 0.0.0.0:8000',
    'php artisan migrate',
    'php artisan migrate:status',
    'npx sequelize-cli db:migrate',
    'npx typeorm migration:run -d src/data-source.ts',
    'supabase db push',
    'supabase db diff -f new_table',
    'heroku pg:info',
    'firebase firestore:delete /users/alice',
    'firebase deploy --only functions',
    'npx eslint --fix .',
    'pnpm exec vitest run',
    'pnpm remove -r lodash',
    'yarn remove left-pad',
    'git reset --soft HEAD~1',
  ])('leaves %s alone', (text) => {
    expect(rulesOf(text)).toEqual([]);
  });
});
