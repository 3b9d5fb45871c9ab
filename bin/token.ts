/**
 * npm run token -- [--sub ID] [--role admin]... [--expires-in 1h]: mints a bearer token for Area A with the configured
 * secret. Without options: an administrator token valid for 12 hours. It needs no database (a JWT is signed, not stored),
 * so it works the same while `npm start` runs; bad arguments are one line on stderr and exit code 2.
 */
import { ADMIN_ROLE, createTokenService } from '../lib/auth/auth.ts';
import { CommandUsageError, parseCommandLine, reportExpectedError } from './tools/cli-command.ts';
import { prepareProcess } from './system/process.ts';

const USAGE = 'npm run token -- [--sub ID] [--role ROLE]... [--expires-in 12h]';

try {
  const values = parseCommandLine(
    process.argv.slice(2),
    {
      sub: { type: 'string', default: 'admin' },
      role: { type: 'string', multiple: true },
      'expires-in': { type: 'string', default: '12h' },
    },
    USAGE,
  );
  if (values.sub === '') throw new CommandUsageError(`--sub must not be empty; usage: ${USAGE}`);
  // A whole number of seconds, minutes, hours or days (what jsonwebtoken's expiresIn reads the same way everywhere).
  const expiresIn = values['expires-in'];
  if (!/^[1-9][0-9]{0,6}[smhd]$/.test(expiresIn))
    throw new CommandUsageError(`--expires-in must be like 90s, 30m, 12h or 7d; usage: ${USAGE}`);
  const { config } = prepareProcess('token');
  const roles = values.role ?? (values.sub === 'admin' ? [ADMIN_ROLE] : []);
  console.log(createTokenService(config.jwt).mint({ sub: values.sub, roles }, { expiresIn: expiresIn as `${number}h` }));
} catch (error) {
  if (!reportExpectedError('token', error)) throw error;
}
