import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import type { ShellWord } from './risk-shell-word';

/**
 * Framework and platform commands that drop or empty the whole database (`prisma migrate reset`, `rails db:drop`,
 * `manage.py flush`, `artisan migrate:fresh`, `supabase db reset`): read as the DROP DATABASE they amount to.
 * Their help never is.
 */
function resets(isReset: (operands: string[], words: string[]) => boolean): ShellCommandHandler {
  return (args: ShellWord[], env: ShellCommandEnv) => {
    const words = args.map((w) => w.value);
    if (words.includes('--help') || words.includes('-h')) return;
    const operands = words.filter((w) => !w.startsWith('-'));
    if (isReset(operands, words)) env.scan.report('drop', env.snippet);
  };
}

/** `prisma migrate reset` drops the database; `prisma db push --force-reset` too, before pushing the schema. */
const prisma = resets(
  ([group, verb], words) =>
    (group === 'migrate' && verb === 'reset') || (group === 'db' && verb === 'push' && words.includes('--force-reset')),
);

/** Rails and rake tasks that drop the database or load a schema over it (dropping every table). */
const RAILS_RESET = /^db:(?:drop(?::all)?|reset|purge(?::all)?|migrate:reset|schema:load|structure:load|truncate_all)$/;
const railsTasks = resets((operands) => operands.some((task) => RAILS_RESET.test(task)));

/** `manage.py flush` empties every table; django-extensions' `reset_db` drops the database. */
const django = resets(([command]) => command === 'flush' || command === 'reset_db');

/** `artisan migrate:fresh` drops every table, `migrate:reset` / `migrate:refresh` roll every migration back, `db:wipe`. */
const artisan = resets(([command]) => /^(?:migrate:(?:fresh|reset|refresh)|db:wipe)$/.test(command ?? ''));

const sequelize = resets((operands) => operands.includes('db:drop'));
const typeorm = resets((operands) => operands.includes('schema:drop'));

/** `supabase db reset` (the local database, or the linked project's with `--linked`). */
const supabase = resets(([group, verb]) => group === 'db' && verb === 'reset');

/** `heroku pg:reset` drops the app's Postgres database. */
const heroku = resets((operands) => operands.includes('pg:reset'));

/** `firebase firestore:delete --all-collections` deletes every document of the database. */
const firebase = resets(
  (operands, words) => operands.includes('firestore:delete') && words.includes('--all-collections'),
);

/** Scripts run by an interpreter (`python manage.py flush`, `php artisan db:wipe`) that these rules read as commands. */
export const DATABASE_RESET_SCRIPTS: ReadonlySet<string> = new Set(['manage.py', 'artisan']);

export const DATABASE_RESET_COMMANDS: Record<string, ShellCommandHandler> = {
  prisma,
  rails: railsTasks,
  rake: railsTasks,
  'manage.py': django,
  'django-admin': django,
  artisan,
  sequelize,
  'sequelize-cli': sequelize,
  typeorm,
  'typeorm-ts-node-commonjs': typeorm,
  'typeorm-ts-node-esm': typeorm,
  supabase,
  heroku,
  firebase,
};
