import { GATEWAY_SETTINGS, SettingDefinition } from './gateway-config.definitions';

/** Renders `.env.example` from the setting definitions (`npm run env:example` writes it; a spec checks it). */
export function renderEnvExample(): string {
  const lines = [
    '# Agent tool gateway configuration: every variable, its default and its meaning.',
    '# Export them in the environment; unset variables take the default shown. The gateway reads no .env file by itself:',
    '# to use one, start it with `node --env-file=.env dist/src/main.js` (after `npm run build`).',
    '',
  ];
  for (const s of GATEWAY_SETTINGS as readonly SettingDefinition[]) {
    lines.push(`# ${s.description}${s.secret ? ' [secret: never logged]' : ''}`);
    const commented = s.defaultValue === undefined;
    lines.push(`${commented ? '# ' : ''}${s.env}=${s.defaultValue ?? ''}`, '');
  }
  return lines.join('\n');
}

if (require.main === module) process.stdout.write(renderEnvExample());
